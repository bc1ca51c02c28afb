import PusherProtocol

/// The life of one relayed connection, as a value (in the manner of `ConnectionStateMachine`): which end is
/// attached, which close frames went out and came in, which socket ended, who closed the connection with which code,
/// and whether anything is still relayed. ``Relay`` feeds it what its two ends report and performs the actions it
/// returns, in order; no socket is needed to test a transition (`RelayLifecycleTests`).
///
/// The rules: a close frame from one end is passed to the other, and answered (RFC 6455 section 5.5.1); an end that
/// has sent and received a close frame is dropped, one that has only sent one is dropped after a grace; a socket
/// that ends without a close frame takes the other end's socket with it (the client's) or drops the client (the
/// upstream's); the first reason the connection ended is the one the `disconnection` row reports; the client's end
/// attached late still gets the upstream's close frame, or is dropped when the upstream is gone already.
struct RelayLifecycle: Sendable {
    typealias Side = RelayEnd.Side

    /// What one end has done.
    struct End: Equatable, Sendable {
        /// Its handler is in place: frames can be written to it.
        var attached = false
        var closeSent = false
        var closeReceived = false
        /// Its socket is closed.
        var ended = false
    }

    /// Who ended the connection, with which code and reason: the first that did, once.
    struct Closing: Equatable, Sendable {
        var by: ConsoleClosedBy
        var code: Int
        var reason: String?
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

    private(set) var client = End()
    private(set) var upstream = End()
    private(set) var closing: Closing?
    /// Nothing is relayed any more (a `stall` fault, or the connection is closing after a fault or a protocol
    /// failure).
    private(set) var stalled = false
    /// The upstream's close frame when it came before the client's end was attached.
    private var earlyClose: (code: Int, reason: String)?
    private var disconnectionReported = false

    func end(_ side: Side) -> End { side == .client ? client : upstream }

    private mutating func update(_ side: Side, _ change: (inout End) -> Void) {
        switch side {
        case .client: change(&client)
        case .upstream: change(&upstream)
        }
    }

    /// The first reason stands.
    private mutating func closed(by: ConsoleClosedBy, code: Int, reason: String?) {
        if closing == nil { closing = Closing(by: by, code: code, reason: reason) }
    }

    /// A close frame to an attached end that has not had one.
    private mutating func sendClose(_ side: Side, code: Int, reason: String) -> [Action] {
        let end = end(side)
        guard end.attached, !end.closeSent else { return [] }
        update(side) { $0.closeSent = true }
        return [.sendClose(side, code: code, reason: reason)]
    }

    // MARK: Inputs

    /// An end's handler is in place.
    mutating func attached(_ side: Side) -> [Action] {
        update(side) { $0.attached = true }
        guard side == .client else { return [] }
        var actions: [Action] = [.releaseEarlyMessages]
        if let (code, reason) = earlyClose {
            // The upstream closed before the client's end was there: its close frame still reaches the client.
            earlyClose = nil
            actions += sendClose(.client, code: code, reason: reason)
        } else if upstream.ended {
            return actions + [.flush(.client), .drop(.client)]
        }
        return actions + [.flush(.client), .fireWaitingFaults]
    }

    /// An end's close frame arrived (`code` nil: a close frame without a code).
    mutating func closeReceived(from side: Side, code: Int?, reason: String) -> [Action] {
        update(side) { $0.closeReceived = true }
        var actions: [Action] = []
        switch side {
        case .client:
            closed(by: .client, code: code ?? 1005, reason: reason)
            actions += sendClose(.upstream, code: code ?? 1000, reason: reason)
        case .upstream:
            closed(by: Self.closedBy(code: code), code: code ?? 1005, reason: reason)
            if client.attached {
                actions += sendClose(.client, code: code ?? 1000, reason: reason)
            } else {
                earlyClose = (code ?? 1000, reason)
            }
        }
        // The end that closed is answered, or dropped when its close answered ours.
        let own = end(side)
        if own.attached {
            actions += own.closeSent ? [.drop(side)] : sendClose(side, code: code ?? 1000, reason: "")
        }
        return actions
    }

    /// A close frame went out to `side`.
    mutating func closeWritten(_ side: Side) -> [Action] {
        let end = end(side)
        guard end.attached else { return [] }
        return [end.closeReceived ? .drop(side) : .dropAfterGrace(side)]
    }

    /// An end's socket closed.
    mutating func ended(_ side: Side) -> [Action] {
        guard !end(side).ended else { return [] }
        update(side) { $0.ended = true }
        switch side {
        case .client:
            closed(by: .client, code: 1006, reason: nil)
            // The client went without a close handshake: the upstream's socket goes the same way.
            var actions: [Action] =
                upstream.attached && !upstream.closeSent && !upstream.ended ? [.drop(.upstream)] : []
            if !disconnectionReported {
                disconnectionReported = true
                actions.append(.reportDisconnection)
            }
            return actions
        case .upstream:
            closed(by: .server, code: 1006, reason: "the upstream's connection ended without a close frame")
            return client.attached && !client.closeSent && !client.ended ? [.drop(.client)] : []
        }
    }

    /// `side` broke the WebSocket protocol: it is failed with `code`, the other end is closed, nothing more is
    /// relayed.
    mutating func protocolFailure(_ side: Side, code: Int, reason: String) -> [Action] {
        stalled = true
        switch side {
        case .client:
            closed(by: .client, code: code, reason: reason)
            return sendClose(.client, code: code, reason: reason) + sendClose(.upstream, code: 1001, reason: "")
        case .upstream:
            closed(by: .server, code: 1011, reason: "upstream: \(reason)")
            return sendClose(.upstream, code: code, reason: reason)
                + sendClose(.client, code: 1011, reason: "The upstream broke the WebSocket protocol")
        }
    }

    /// A `close` fault: the client is closed with `code` (1006: its socket dropped, no close frame) as by the
    /// server, whatever happened before; the upstream's end with 1001.
    mutating func faultClose(code: Int, reason: String) -> [Action] {
        stalled = true
        closing = Closing(by: .server, code: code, reason: reason)
        let upstreamClose = sendClose(.upstream, code: 1001, reason: "")
        if code == 1006 { return upstreamClose + (client.attached ? [.drop(.client)] : []) }
        return upstreamClose + sendClose(.client, code: code, reason: reason)
    }

    /// A `stall` fault: nothing more is relayed either way.
    mutating func stall() {
        stalled = true
    }

    /// Who a close code from the upstream says closed the connection.
    static func closedBy(code: Int?) -> ConsoleClosedBy {
        switch code {
        case 4201: return .timeout
        case 4100: return .slowConsumer
        default: return .server
        }
    }
}
