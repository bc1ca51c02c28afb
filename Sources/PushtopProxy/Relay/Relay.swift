import Logging
import NIOCore
import NIOWebSocket
import PusherProtocol
import PushtopServer

/// One relayed connection: the client's end and the upstream's end on one event loop, and the messages passed
/// between them as bytes. It reads (never rewrites) what it relays to make console rows, and applies the faults
/// that match it. Its life (which end is attached, closing or gone, whether anything is relayed, who closed the
/// connection) is a ``RelayStateMachine``: the relay feeds it events and performs the actions it returns.
///
/// - Important: A relay is not `Sendable`: it lives on ``eventLoop``, held by its two ends' handlers, and is used
///   there only. Other threads (the registry of open connections, the control endpoint, a judge, a new fault rule)
///   reach it through a ``RelayHandle``, a `NIOLoopBound` that hops to the loop and checks it is there.
final class Relay {
    let core: ProxyCore
    let eventLoop: any EventLoop
    /// The n-th connection since the proxy started (from 1): what `fraction=` faults choose by.
    let number: Int
    let info: ConsoleConnectionInfo
    /// Host of the client's address (no port), for matching a reconnection to its fault.
    let remoteHost: String
    let openedAt = ContinuousClock.now
    /// When the upstream's `pusher:connection_established` passed (faults' `after=` counts from it).
    var establishedAt: ContinuousClock.Instant?
    /// The `protocol` query of the client's URL.
    let protocolVersion: Int?

    private(set) var client: RelayEnd?
    private(set) var upstream: RelayEnd?
    /// Where the connection is: changed only by ``handle(_:)``.
    private(set) var lifecycle = RelayStateMachine()
    /// Messages from the upstream that arrived before the client's end was ready (the connection's first frames).
    private var early: [(WebSocketOpcode, ByteBuffer)] = []
    var clientEnded: Bool { lifecycle.clientEnded }
    /// Whether messages pass (not stalled by a fault, not closing). Read on every frame, so kept as a Bool, set each
    /// time the state machine moves, rather than a switch over its state (whose payloads a read copies).
    private(set) var relays = false

    /// The socket id the upstream gave (from `pusher:connection_established`).
    var socketID: String?
    var userID: String?
    /// Channels the upstream confirmed, with the user id of presence members.
    var channels: Set<String> = []
    /// Subscriptions sent and not yet answered: channel → when sent.
    var pendingSubscriptions: [String: ContinuousClock.Instant] = [:]
    /// The fault that ended or stalled this connection, if any (its rule text).
    var fault: String?
    /// Close and stall rules waiting for a subscription to a channel of their pattern.
    /// Connection faults that came due before the client's end was attached.
    var waitingForClient: [FaultBook.Entry] = []
    var waitingForChannel: [FaultBook.Entry] = []
    var decoder = PusherFrameDecoder()

    init(
        core: ProxyCore, eventLoop: any EventLoop, number: Int, info: ConsoleConnectionInfo, protocolVersion: Int?
    ) {
        self.protocolVersion = protocolVersion
        self.core = core
        self.eventLoop = eventLoop
        self.number = number
        self.info = info
        remoteHost = Self.host(of: info.remoteAddress ?? "")
    }

    /// The host of `HOST:PORT` or `[IPv6]:PORT`.
    static func host(of address: String) -> String {
        if address.hasPrefix("["), let end = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<end])
        }
        return address.split(separator: ":").first.map(String.init) ?? address
    }

    var logger: Logger { core.logger }

    // MARK: Ends

    func attached(_ end: RelayEnd) {
        switch end.side {
        case .upstream: upstream = end
        case .client: client = end
        }
        handle(.attached(end.side))
    }

    /// `end` left its channel's pipeline: the relay stops holding it (see ``RelayEnd/handlerRemoved(context:)``).
    func detached(_ end: RelayEnd) {
        switch end.side {
        case .upstream: if upstream === end { upstream = nil }
        case .client: if client === end { client = nil }
        }
    }

    /// Feeds `event` to the state machine and does what it says, in order.
    func handle(_ event: RelayStateMachine.Event) {
        let actions = lifecycle.handle(event)
        relays = lifecycle.relays
        for action in actions {
            switch action {
            case .sendClose(let side, let code, let reason): self.end(side)?.sendClose(code: code, reason: reason)
            case .drop(let side): self.end(side)?.drop()
            case .dropAfterGrace(let side):
                guard let end = self.end(side) else { continue }
                eventLoop.assumeIsolated().scheduleTask(in: .seconds(2)) { end.drop() }
            case .releaseEarlyMessages:
                for (opcode, payload) in early { client?.send(opcode: opcode, payload: payload) }
                early = []
            case .flush(let side): self.end(side)?.flush()
            case .fireWaitingFaults:
                let waiting = waitingForClient
                waitingForClient = []
                for entry in waiting { fire(entry) }
            case .reportDisconnection: reportDisconnection()
            }
        }
    }

    private func end(_ side: RelayEnd.Side) -> RelayEnd? { side == .client ? client : upstream }

    func received(from side: RelayEnd.Side, opcode: WebSocketOpcode, payload: ByteBuffer) {
        core.counters.relayed(from: side)
        if side == .client, opcode == .text, let tap = core.tap {
            tap(WireRecord(.message(connection: number, fromClient: true, text: String(buffer: payload))))
        }
        guard relays else { return }
        switch side {
        case .client:
            if opcode == .text, !observeFromClient(payload) { return }
            upstream?.send(opcode: opcode, payload: payload)
        case .upstream:
            var copies = 1
            var payload = payload
            if opcode == .text, mustRead(payload) {
                copies = observeFromUpstream(&payload)
            }
            for _ in 0..<copies { sendToClient(opcode: opcode, payload: payload) }
        }
    }

    /// Writes `text` to the client as if the upstream had sent it (a judge's `pusher:ping`), and flushes.
    func inject(_ text: String) {
        guard relays else { return }
        sendToClient(opcode: .text, payload: ByteBuffer(string: text))
        client?.flush()
    }

    func sendToClient(opcode: WebSocketOpcode, payload: ByteBuffer) {
        if opcode == .text, let tap = core.tap {
            tap(WireRecord(.message(connection: number, fromClient: false, text: String(buffer: payload))))
        }
        if let client {
            client.send(opcode: opcode, payload: payload)
        } else {
            early.append((opcode, payload))
        }
    }

    func readComplete(from side: RelayEnd.Side) {
        switch side {
        case .client: upstream?.flush()
        case .upstream: client?.flush()
        }
    }

    /// The other end cannot take more: stop reading this one until it can (backpressure across the relay).
    func writabilityChanged(_ side: RelayEnd.Side, writable: Bool) {
        switch side {
        case .client: upstream?.setReading(writable)
        case .upstream: client?.setReading(writable)
        }
    }

    func closeReceived(from side: RelayEnd.Side, code: Int?, reason: String) {
        handle(.closeReceived(side, code: code, reason: reason))
    }

    /// A close frame went out to `side`: the socket ends when that side's close came too, or after a grace.
    func closeWritten(_ side: RelayEnd.Side) {
        handle(.closeWritten(side))
    }

    func ended(_ side: RelayEnd.Side) {
        handle(.ended(side))
    }

    func socketError(_ side: RelayEnd.Side, _ error: any Error) {
        logger.debug(
            "relay socket error",
            metadata: ["side": "\(side.rawValue)", "socket_id": "\(socketID ?? "-")", "error": "\(error)"])
    }

    /// One end broke the WebSocket protocol: it is failed with `code`, the other end is closed, and the proxy says
    /// so (a log line and an `error` row).
    func protocolFailure(_ side: RelayEnd.Side, code: Int, reason: String) {
        logger.notice(
            "closing a relayed connection: the \(side.rawValue) broke the WebSocket protocol",
            metadata: ["socket_id": "\(socketID ?? "-")", "code": "\(code)", "reason": "\(reason)"])
        core.console.emit {
            var row = ConsoleRow(type: .error, timeMs: ConsoleClock.nowMs())
            row.socketID = socketID
            row.code = code
            row.reason = "\(side.rawValue): \(reason)"
            row.rule = side == .client ? "client_protocol" : "upstream_protocol"
            row.remoteAddress = side == .client ? info.remoteAddress : nil
            return row
        }
        handle(.protocolFailure(side, code: code, reason: reason))
    }

    /// The `disconnection` row, once, when the client's socket has ended.
    private func reportDisconnection() {
        core.tap?(
            WireRecord(
                .ended(
                    connection: number, code: lifecycle.disconnection?.code,
                    closedBy: lifecycle.disconnection.map { "\($0.by.rawValue)" })))
        if let socketID { core.unregister(socketID: socketID, relay: self) }
        core.recoveries.disconnected(self)
        // After the disconnection row: the channels it was the last socket in are vacated.
        defer { for channel in channels { core.occupancy.left(channel) } }
        guard socketID != nil else { return }
        core.console.emit {
            var row = ConsoleRow(type: .disconnection, timeMs: ConsoleClock.nowMs())
            row.socketID = socketID
            row.code = lifecycle.disconnection?.code
            row.reason = lifecycle.disconnection?.reason.flatMap { $0.isEmpty ? nil : $0 }
            row.closedBy = lifecycle.disconnection?.by
            row.channels = channels.sorted()
            row.lifetimeMs = Self.milliseconds(ContinuousClock.now - openedAt)
            row.fault = fault
            return row
        }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
