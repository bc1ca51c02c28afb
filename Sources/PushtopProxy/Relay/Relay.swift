import Logging
import NIOCore
import NIOWebSocket
import PusherProtocol
import PushtopServer

/// One relayed connection: the client's end and the upstream's end on one event loop, and the messages passed
/// between them as bytes. It reads (never rewrites) what it relays to make console rows, and applies the faults
/// that match it.
///
/// - Important: Every method and property is used on ``eventLoop`` only; other threads hop there (``onLoop(_:)``).
final class Relay: @unchecked Sendable {
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

    var client: RelayEnd?
    var upstream: RelayEnd?
    /// Messages from the upstream that arrived before the client's end was ready (the connection's first frames).
    /// The upstream's close frame (code, reason) when it came before the client's end was attached.
    private var earlyClose: (Int, String)?
    private var early: [(WebSocketOpcode, ByteBuffer)] = []
    var clientEnded = false
    var upstreamEnded = false

    /// The socket id the upstream gave (from `pusher:connection_established`).
    var socketID: String?
    var userID: String?
    /// Channels the upstream confirmed, with the user id of presence members.
    var channels: Set<String> = []
    /// Subscriptions sent and not yet answered: channel → when sent.
    var pendingSubscriptions: [String: ContinuousClock.Instant] = [:]
    /// Nothing is relayed any more (a `stall` fault, or the connection is closing after a fault).
    var stalled = false
    /// The fault that ended or stalled this connection, if any (its rule text).
    var fault: String?
    var closedBy: ConsoleClosedBy?
    var closeCode: Int?
    var closeReason: String?
    /// Close and stall rules waiting for a subscription to a channel of their pattern.
    /// Connection faults that came due before the client's end was attached.
    var waitingForClient: [FaultBook.Entry] = []
    var waitingForChannel: [FaultBook.Entry] = []
    var decoder = PusherFrameDecoder()
    private var disconnectionReported = false

    init(
        core: ProxyCore, eventLoop: any EventLoop, number: Int, info: ConsoleConnectionInfo, protocolVersion: Int?
    ) {
        self.protocolVersion = protocolVersion
        self.core = core
        self.eventLoop = eventLoop
        self.number = number
        self.info = info
        let address = info.remoteAddress ?? ""
        if address.hasPrefix("["), let end = address.firstIndex(of: "]") {
            remoteHost = String(address[address.index(after: address.startIndex)..<end])
        } else {
            remoteHost = address.split(separator: ":").first.map(String.init) ?? address
        }
    }

    var logger: Logger { core.logger }

    /// Runs `body` on the relay's event loop.
    func onLoop(_ body: @escaping @Sendable () -> Void) {
        if eventLoop.inEventLoop { body() } else { eventLoop.execute(body) }
    }

    // MARK: Ends

    func attached(_ end: RelayEnd) {
        switch end.side {
        case .upstream:
            upstream = end
        case .client:
            client = end
            for (opcode, payload) in early { end.send(opcode: opcode, payload: payload) }
            early = []
            if let (code, reason) = earlyClose {
                // The upstream closed before the client's end was there: its close frame still reaches the client.
                earlyClose = nil
                end.sendClose(code: code, reason: reason)
            } else if upstreamEnded {
                end.flush()
                end.drop()
                return
            }
            end.flush()
            let waiting = waitingForClient
            waitingForClient = []
            for entry in waiting { fire(entry) }
        }
    }

    func received(from side: RelayEnd.Side, opcode: WebSocketOpcode, payload: ByteBuffer) {
        core.counters.relayed(from: side)
        guard !stalled else { return }
        switch side {
        case .client:
            if opcode == .text, !observeFromClient(payload) { return }
            upstream?.send(opcode: opcode, payload: payload)
        case .upstream:
            var copies = 1
            if opcode == .text, mustRead(payload) {
                copies = observeFromUpstream(payload)
            }
            for _ in 0..<copies { sendToClient(opcode: opcode, payload: payload) }
        }
    }

    func sendToClient(opcode: WebSocketOpcode, payload: ByteBuffer) {
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
        switch side {
        case .client:
            if closedBy == nil {
                closedBy = .client
                closeCode = code ?? 1005
                closeReason = reason
            }
            if let upstream, !upstream.closeSent { upstream.sendClose(code: code ?? 1000, reason: reason) }
            if let client {
                if client.closeSent { client.drop() } else { client.sendClose(code: code ?? 1000, reason: "") }
            }
        case .upstream:
            if closedBy == nil {
                closedBy = Self.closedBy(code: code)
                closeCode = code ?? 1005
                closeReason = reason
            }
            if let client, !client.closeSent {
                client.sendClose(code: code ?? 1000, reason: reason)
            } else if client == nil {
                earlyClose = (code ?? 1000, reason)
            }
            if let upstream {
                if upstream.closeSent { upstream.drop() } else { upstream.sendClose(code: code ?? 1000, reason: "") }
            }
        }
    }

    static func closedBy(code: Int?) -> ConsoleClosedBy {
        switch code {
        case 4201: return .timeout
        case 4100: return .slowConsumer
        default: return .server
        }
    }

    /// A close frame went out to `side`: the socket ends when that side's close came too, or after a grace.
    func closeWritten(_ side: RelayEnd.Side) {
        let end = side == .client ? client : upstream
        guard let end else { return }
        if end.closeReceived {
            end.drop()
        } else {
            eventLoop.assumeIsolated().scheduleTask(in: .seconds(2)) { end.drop() }
        }
    }

    func ended(_ side: RelayEnd.Side) {
        switch side {
        case .client:
            guard !clientEnded else { return }
            clientEnded = true
            if closedBy == nil {
                closedBy = .client
                closeCode = 1006
            }
            // The client went without a close handshake: the upstream's socket goes the same way.
            if let upstream, !upstream.closeSent { upstream.drop() }
            reportDisconnection()
        case .upstream:
            guard !upstreamEnded else { return }
            upstreamEnded = true
            if closedBy == nil {
                closedBy = .server
                closeCode = 1006
                closeReason = "the upstream's connection ended without a close frame"
            }
            if let client, !client.closeSent { client.drop() }
        }
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
        stalled = true
        switch side {
        case .client:
            if closedBy == nil {
                closedBy = .client
                closeCode = code
                closeReason = reason
            }
            client?.sendClose(code: code, reason: reason)
            upstream?.sendClose(code: 1001, reason: "")
        case .upstream:
            if closedBy == nil {
                closedBy = .server
                closeCode = 1011
                closeReason = "upstream: \(reason)"
            }
            upstream?.sendClose(code: code, reason: reason)
            client?.sendClose(code: 1011, reason: "The upstream broke the WebSocket protocol")
        }
    }

    /// The `disconnection` row, once, when the client's socket has ended.
    private func reportDisconnection() {
        guard !disconnectionReported else { return }
        disconnectionReported = true
        if let socketID { core.unregister(socketID: socketID, relay: self) }
        core.recoveries.disconnected(self)
        // After the disconnection row: the channels it was the last socket in are vacated.
        defer { for channel in channels { core.occupancy.left(channel) } }
        guard socketID != nil else { return }
        core.console.emit {
            var row = ConsoleRow(type: .disconnection, timeMs: ConsoleClock.nowMs())
            row.socketID = socketID
            row.code = closeCode
            row.reason = closeReason.flatMap { $0.isEmpty ? nil : $0 }
            row.closedBy = closedBy
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
