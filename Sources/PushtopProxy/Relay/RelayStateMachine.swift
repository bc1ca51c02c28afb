import PusherProtocol

/// The life of one relayed connection as a value, in the manner of `ConnectionStateMachine`: events in, actions out.
///
/// ``Relay`` feeds it what its two ends report (an end attached, a close frame in or out, a socket ended, a broken
/// protocol) and what the faults decide (close, drop, stall), and performs the actions it returns, in order. No
/// socket, clock or event loop lives here, so every transition is tested as a value (`RelayStateMachineTests`), and
/// how a relay ends is tested again through a real ``Relay`` on `EmbeddedChannel`s (`RelayEndingTests`).
///
/// The phases, in order (a phase never comes back):
///
///     dialing ──► awaitingClient ──► relaying ⇄ stalled ──► closing ──► closed
///                        └──────────────────────────────────────┘
///
/// The rules: a close frame from one end is passed to the other, and answered (RFC 6455 section 5.5.1); an end that
/// has sent and received a close frame is dropped, one that has only sent one is dropped after a grace; a socket that
/// ends without a close frame takes the other end's socket with it; the first reason the connection ended is the one
/// the `disconnection` row reports (a `close` fault overrides it: it speaks for the server); whatever the upstream did
/// before the client's end was attached (a close, the end of its socket, a broken protocol, a fault) the client meets
/// once it is, after the messages that came before. An event too late or too early for its phase (a close after both
/// sockets ended, a fault on a closing relay, a client's event before its end is attached) changes nothing and asks
/// for nothing.
struct RelayStateMachine: Sendable {
    typealias Side = RelayEnd.Side

    /// What happens to a relayed connection: its ends' reports and the faults' decisions.
    enum Event: Equatable, Sendable {
        /// An end's handler is in place: frames can be written to it.
        case attached(Side)
        /// An end's close frame arrived (`code` nil: a close frame without a code).
        case closeReceived(Side, code: Int?, reason: String)
        /// A close frame went out to an end.
        case closeWritten(Side)
        /// An end's socket closed.
        case ended(Side)
        /// An end broke the WebSocket protocol: it is failed with `code`.
        case protocolFailure(Side, code: Int, reason: String)
        /// A `close` fault: the client is closed with `code` (1006: its socket dropped, no close frame) as by the
        /// server, the upstream's end with 1001.
        case faultClose(code: Int, reason: String)
        /// A judge drops the client's socket, stalled or not (`pushtop conform --client`).
        case dropClient
        /// A `stall` fault: nothing more is relayed either way.
        case stall
    }

    /// What ``Relay`` must do, in order.
    enum Action: Equatable, Sendable {
        /// Write a close frame to the end (then flush).
        case sendClose(Side, code: Int, reason: String)
        /// Close the end's socket now.
        case drop(Side)
        /// Close the end's socket after the close grace (its close frame may still come).
        case dropAfterGrace(Side)
        /// The upstream's messages held before the client's end was attached go to it.
        case releaseEarlyMessages
        case flush(Side)
        /// The connection faults that came due before the client's end was attached fire now.
        case fireWaitingFaults
        /// The client's socket has ended: the `disconnection` row (once).
        case reportDisconnection
    }

    /// How far one end's close has gone.
    struct End: Equatable, Sendable {
        var closeSent = false
        var closeReceived = false
        /// Its socket is closed.
        var ended = false
    }

    /// Both ends, once both are attached.
    struct Ends: Equatable, Sendable {
        var client = End()
        var upstream = End()

        subscript(side: Side) -> End {
            get { side == .client ? client : upstream }
            set {
                switch side {
                case .client: client = newValue
                case .upstream: upstream = newValue
                }
            }
        }
    }

    /// What the client meets when its end is attached, decided while it was not.
    enum Fate: Equatable, Sendable {
        case close(code: Int, reason: String)
        case drop
    }

    /// The upstream's end is attached, the client's is not yet: its messages are held for the client.
    struct AwaitingClient: Equatable, Sendable {
        var upstream = End()
        var fate: Fate?
        /// Nothing is held or relayed any more (a fault, or the upstream broke the protocol).
        var stalled = false
    }

    /// Where the connection is.
    enum State: Equatable, Sendable {
        /// The upstream's upgrade is under way: no end is attached.
        case dialing
        /// The upstream's end is attached; the client's upgrade is being answered.
        case awaitingClient(AwaitingClient)
        /// Both ends are attached and open: messages pass both ways.
        case relaying
        /// Both ends are open and nothing passes (a `stall` fault): the client gives up on its own, or is dropped.
        case stalled
        /// A close frame went or came, or a socket ended: the close handshake of each end, until both sockets end.
        case closing(Ends)
        /// Both sockets have ended. Every later event is ignored; the relay is freed once its two channels' pipelines
        /// are torn down (``RelayEnd/handlerRemoved(context:)``).
        case closed
    }

    /// Who ended the connection, with which code and reason: what the `disconnection` row says.
    struct Disconnection: Equatable, Sendable {
        var by: ConsoleClosedBy
        var code: Int
        var reason: String?
    }

    /// The reason a dropped client's `disconnection` row gives.
    static let dropReason = "connection dropped without a close frame"

    private(set) var state = State.dialing
    private(set) var disconnection: Disconnection?

    /// Whether messages pass (before the client's end is attached: are held for it).
    var relays: Bool {
        switch state {
        case .relaying: return true
        case .awaitingClient(let waiting): return !waiting.stalled
        default: return false
        }
    }

    /// Whether the client's socket has ended.
    var clientEnded: Bool {
        switch state {
        case .closing(let ends): return ends.client.ended
        case .closed: return true
        default: return false
        }
    }

    /// Feeds one event and returns what to do, in order.
    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .attached(let side): return attached(side)
        case .closeReceived(let side, let code, let reason):
            return closeReceived(from: side, code: code, reason: reason)
        case .closeWritten(let side): return closeWritten(side)
        case .ended(let side): return ended(side)
        case .protocolFailure(let side, let code, let reason): return protocolFailure(side, code: code, reason: reason)
        case .faultClose(let code, let reason): return faultClose(code: code, reason: reason)
        case .dropClient: return dropClient()
        case .stall: return stall()
        }
    }

    /// Who a close code from the upstream says closed the connection.
    static func closedBy(code: Int?) -> ConsoleClosedBy {
        switch code {
        case 4201: return .timeout
        case 4100: return .slowConsumer
        default: return .server
        }
    }

    // MARK: - Transitions

    private mutating func attached(_ side: Side) -> [Action] {
        switch (state, side) {
        case (.dialing, .upstream):
            state = .awaitingClient(AwaitingClient())
            return []
        case (.dialing, .client):
            // The client's upgrade is answered only once the upstream's end is attached: a client's end that came
            // first would wait for an upstream that is not there.
            return [.drop(.client)]
        case (.awaitingClient(let waiting), .client):
            // The upstream's messages held so far go first (the connection's first frames: its socket id).
            let actions: [Action] = [.releaseEarlyMessages, .flush(.client)]
            switch waiting.fate {
            case .close(let code, let reason)?:
                state = .closing(Ends(client: End(closeSent: true), upstream: waiting.upstream))
                return actions + [.sendClose(.client, code: code, reason: reason)]
            case .drop?:
                state = .closing(Ends(upstream: waiting.upstream))
                return actions + [.drop(.client)]
            case nil:
                state = waiting.stalled ? .stalled : .relaying
                return actions + [.fireWaitingFaults]
            }
        default:
            return []  // attached twice
        }
    }

    private mutating func closeReceived(from side: Side, code: Int?, reason: String) -> [Action] {
        let by = side == .client ? .client : Self.closedBy(code: code)
        switch state {
        case .awaitingClient(var waiting) where side == .upstream && !waiting.upstream.closeReceived:
            record(by: by, code: code ?? 1005, reason: reason)
            waiting.upstream.closeReceived = true
            // The upstream's close frame still reaches the client, once its end is there.
            waiting.fate = waiting.fate ?? .close(code: code ?? 1000, reason: reason)
            let actions = Self.answer(&waiting.upstream, .upstream, code: code)
            state = .awaitingClient(waiting)
            return actions
        case .relaying, .stalled, .closing:
            var ends = self.ends ?? Ends()
            guard !ends[side].closeReceived, !ends[side].ended else { return [] }
            record(by: by, code: code ?? 1005, reason: reason)
            ends[side].closeReceived = true
            let other = side.other
            let actions =
                Self.sendClose(&ends[other], other, code: code ?? 1000, reason: reason)
                + Self.answer(&ends[side], side, code: code)
            state = .closing(ends)
            return actions
        case .dialing, .awaitingClient, .closed:
            return []
        }
    }

    private mutating func closeWritten(_ side: Side) -> [Action] {
        let end: End
        switch state {
        case .awaitingClient(let waiting) where side == .upstream: end = waiting.upstream
        case .closing(let ends): end = ends[side]
        default: return []
        }
        guard !end.ended else { return [] }
        return [end.closeReceived ? .drop(side) : .dropAfterGrace(side)]
    }

    private mutating func ended(_ side: Side) -> [Action] {
        switch state {
        case .awaitingClient(var waiting) where side == .upstream && !waiting.upstream.ended:
            waiting.upstream.ended = true
            record(by: .server, code: 1006, reason: "the upstream's connection ended without a close frame")
            waiting.fate = waiting.fate ?? .drop
            state = .awaitingClient(waiting)
            return []
        case .relaying, .stalled, .closing:
            var ends = self.ends ?? Ends()
            guard !ends[side].ended else { return [] }
            ends[side].ended = true
            // An end gone without a close handshake takes the other end's socket the same way.
            let other = side.other
            var actions: [Action] = ends[other].closeSent || ends[other].ended ? [] : [.drop(other)]
            switch side {
            case .client:
                record(by: .client, code: 1006, reason: nil)
                actions.append(.reportDisconnection)
            case .upstream:
                record(by: .server, code: 1006, reason: "the upstream's connection ended without a close frame")
            }
            state = ends.client.ended && ends.upstream.ended ? .closed : .closing(ends)
            return actions
        case .dialing, .awaitingClient, .closed:
            return []
        }
    }

    private mutating func protocolFailure(_ side: Side, code: Int, reason: String) -> [Action] {
        // The client that broke it is failed with its code; the upstream that did is failed, and the client told 1011.
        let (otherCode, otherReason) =
            side == .client ? (1001, "") : (1011, "The upstream broke the WebSocket protocol")
        let record: Disconnection =
            side == .client
            ? .init(by: .client, code: code, reason: reason)
            : .init(by: .server, code: 1011, reason: "upstream: \(reason)")
        switch state {
        case .awaitingClient(var waiting) where side == .upstream:
            self.record(by: record.by, code: record.code, reason: record.reason)
            waiting.stalled = true
            waiting.fate = waiting.fate ?? .close(code: otherCode, reason: otherReason)
            let actions = Self.sendClose(&waiting.upstream, .upstream, code: code, reason: reason)
            state = .awaitingClient(waiting)
            return actions
        case .relaying, .stalled, .closing:
            var ends = self.ends ?? Ends()
            self.record(by: record.by, code: record.code, reason: record.reason)
            let other = side.other
            let actions =
                Self.sendClose(&ends[side], side, code: code, reason: reason)
                + Self.sendClose(&ends[other], other, code: otherCode, reason: otherReason)
            state = .closing(ends)
            return actions
        case .dialing, .awaitingClient, .closed:
            return []
        }
    }

    private mutating func faultClose(code: Int, reason: String) -> [Action] {
        let fate: Fate = code == 1006 ? .drop : .close(code: code, reason: reason)
        switch state {
        case .awaitingClient(var waiting):
            // The fault speaks for the server, whatever the upstream did before the client's end was attached.
            disconnection = Disconnection(by: .server, code: code, reason: reason)
            waiting.stalled = true
            waiting.fate = fate
            let actions = Self.sendClose(&waiting.upstream, .upstream, code: 1001, reason: "")
            state = .awaitingClient(waiting)
            return actions
        case .relaying, .stalled:
            disconnection = Disconnection(by: .server, code: code, reason: reason)
            var ends = Ends()
            var actions = Self.sendClose(&ends.upstream, .upstream, code: 1001, reason: "")
            switch fate {
            case .drop: actions.append(.drop(.client))
            case .close(let code, let reason):
                actions += Self.sendClose(&ends.client, .client, code: code, reason: reason)
            }
            state = .closing(ends)
            return actions
        case .dialing, .closing, .closed:
            return []  // too late (the close under way stands) or too early (no connection yet)
        }
    }

    private mutating func dropClient() -> [Action] {
        switch state {
        case .awaitingClient, .relaying, .stalled:
            return faultClose(code: 1006, reason: Self.dropReason)
        case .closing(let ends) where !ends.client.ended:
            // Closing already, and the judge wants it gone: the socket goes now, who closed it stands.
            return [.drop(.client)]
        case .dialing, .closing, .closed:
            return []
        }
    }

    private mutating func stall() -> [Action] {
        switch state {
        case .relaying: state = .stalled
        case .awaitingClient(var waiting):
            waiting.stalled = true
            state = .awaitingClient(waiting)
        case .dialing, .stalled, .closing, .closed: break
        }
        return []
    }

    // MARK: - Helpers

    /// Both ends' progress once both are attached (a fresh pair when the first close or end comes).
    private var ends: Ends? {
        if case .closing(let ends) = state { return ends }
        return nil
    }

    /// The first reason stands.
    private mutating func record(by: ConsoleClosedBy, code: Int, reason: String?) {
        if disconnection == nil { disconnection = Disconnection(by: by, code: code, reason: reason) }
    }

    /// A close frame to an end that has not had one and is still open.
    private static func sendClose(_ end: inout End, _ side: Side, code: Int, reason: String) -> [Action] {
        guard !end.closeSent, !end.ended else { return [] }
        end.closeSent = true
        return [.sendClose(side, code: code, reason: reason)]
    }

    /// The end whose close frame came is answered with its code, or dropped when its close answered ours.
    private static func answer(_ end: inout End, _ side: Side, code: Int?) -> [Action] {
        end.closeSent ? [.drop(side)] : sendClose(&end, side, code: code ?? 1000, reason: "")
    }
}

extension RelayEnd.Side {
    /// The end across the relay.
    var other: Self { self == .client ? .upstream : .client }
}
