import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
import PusherProtocol
import PushtopServer

/// One connection to the proxy: a WebSocket upgrade (to `/app/{key}`, after any path prefix) becomes a ``Relay``
/// once the upstream accepted the same upgrade; plain HTTP goes to Hummingbird's router (the console feed, the control
/// endpoint, and the HTTP API passed through).
///
/// The pipeline is `serve`'s (``WebSocketServerPipeline``): the same deadlines, handshake validation, HTTP/0.9 guard
/// and water marks, so a stranger gets the same answers from both; the proxy adds only its relay.
struct ProxyServerChannel: ServerChildChannel, HTTPChannelHandler {
    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<WebSocketServerPipeline.Result>
        let channel: any Channel
    }

    /// The relay between the client's upgrade request and its upgraded pipeline (one connection, one loop: held in a
    /// `NIOLoopBoundBox` of the connection's loop, as the relay is that loop's).
    struct PendingRelay {
        var relay: Relay?
        var deflate: PerMessageDeflate?
    }

    let responder: HTTPChannelHandler.Responder
    let core: ProxyCore

    init(responder: @escaping HTTPChannelHandler.Responder, core: ProxyCore) {
        self.responder = { request, writer, channel in
            let address = channel.remoteAddress.map(ConsoleConnectionInfo.describe)
            try await responder(ProxyPeer.tagging(request, address: address), writer, channel)
        }
        self.core = core
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let core = self.core
            let pending = NIOLoopBoundBox.makeBoxSendingValue(PendingRelay(), eventLoop: channel.eventLoop)
            let configuration = core.configuration
            let guards = WebSocketServerPipeline.Guards(
                maxMessageBytes: configuration.maxMessageBytes,
                maxPendingOutboundBytes: configuration.maxPendingOutboundBytes,
                requestTimeout: TimeAmount(configuration.requestTimeout),
                idleTimeout: TimeAmount(configuration.idleTimeout), endpoints: .appUnderAnyPrefix)
            let upgraded = try WebSocketServerPipeline.configure(
                channel, guards: guards, logger: logger,
                refused: { status, reason, channel in Self.refused(status, reason, core: core, channel: channel) },
                shouldUpgrade: { channel, head in
                    Self.dial(core: core, channel: channel, head: head, pending: pending)
                },
                upgraded: { channel, _ in
                    guard let relay = pending.value.relay else {
                        throw ChannelError.inappropriateOperationForState
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        RelayEnd(
                            side: .client, relay: relay, maxMessageBytes: configuration.maxMessageBytes,
                            clientDeflate: pending.value.deflate))
                })
            return Value(upgradeResult: upgraded, channel: channel)
        }
    }

    /// Opens the upstream's end for a client's upgrade; the client's upgrade succeeds only once the upstream's
    /// did (a refused or unreachable upstream, or an `outage` fault, fails it: the client's socket is closed). A
    /// broken handshake (a query that breaks ``URLQuery``'s rule too) never gets here: the validator answered it.
    private static func dial(
        core: ProxyCore, channel: any Channel, head: HTTPRequestHead, pending: NIOLoopBoundBox<PendingRelay>
    ) -> EventLoopFuture<HTTPHeaders?> {
        let query = (try? URLQuery.split(target: head.uri).query) ?? URLQuery()
        var connectionInfo = ConsoleConnectionInfo(head: head, query: query, remote: channel.remoteAddress)
        connectionInfo.tls = false
        let info = connectionInfo
        if let entry = core.faults.outage() {
            core.tap?(
                WireRecord(
                    .attempt(
                        connection: nil, remoteHost: Self.host(info.remoteAddress), target: head.uri,
                        refusal: "outage")))
            core.counters.refusedConnection()
            var row = ConsoleRow(type: .fault, timeMs: ConsoleClock.nowMs())
            row.fault = entry.text
            row.reason = "connection refused (outage)"
            row.remoteAddress = info.remoteAddress
            row.clientLibrary = info.clientLibrary
            row.clientVersion = info.clientVersion
            core.post(row)
            return channel.eventLoop.makeFailedFuture(UpstreamFailure.unreachable("outage fault"))
        }
        let relay = Relay(
            core: core, eventLoop: channel.eventLoop, number: core.nextConnectionNumber(), info: info,
            protocolVersion: query["protocol"].flatMap { Int($0) })
        core.tap?(
            WireRecord(
                .attempt(connection: relay.number, remoteHost: relay.remoteHost, target: head.uri, refusal: nil)))
        let bound = NIOLoopBound(relay, eventLoop: channel.eventLoop)
        return UpstreamDialer.connect(core: core, relay: relay, head: head, on: channel.eventLoop).map {
            _ -> HTTPHeaders? in
            core.counters.connected()
            pending.value.relay = bound.value
            var headers = HTTPHeaders()
            if core.configuration.compression, let deflate = PerMessageDeflate.negotiate(head.headers) {
                pending.value.deflate = deflate
                headers.add(name: "Sec-WebSocket-Extensions", value: deflate.responseHeader)
            }
            return headers
        }.flatMapErrorThrowing { error in
            core.logger.notice(
                "could not open the upstream's end of a connection",
                metadata: ["client": "\(info.remoteAddress ?? "-")", "error": "\(error)"])
            core.post(Self.refusalRow(error, info: info))
            // NIO's upgrader leaves the socket open when the decision fails late: close it, as a dead server's.
            channel.close(promise: nil)
            throw error
        }
    }

    /// The host of `address` (`HOST:PORT` or `[IPv6]:PORT`), as ``Relay/remoteHost``.
    static func host(_ address: String?) -> String {
        Relay.host(of: address ?? "")
    }

    /// A handshake the validator refused (it answers the client): an `error` row says why.
    private static func refused(_ status: HTTPResponseStatus, _ reason: String, core: ProxyCore, channel: any Channel) {
        var row = ConsoleRow(type: .error, timeMs: ConsoleClock.nowMs())
        row.reason = reason
        row.rule = "handshake"
        row.status = Int(status.code)
        row.remoteAddress = channel.remoteAddress.map(ConsoleConnectionInfo.describe)
        core.post(row)
    }

    private static func refusalRow(_ error: any Error, info: ConsoleConnectionInfo) -> ConsoleRow {
        var row = ConsoleRow(type: .error, timeMs: ConsoleClock.nowMs())
        row.reason = "\(error)"
        row.rule = "upstream"
        if case UpstreamFailure.refused(let status, _) = error { row.status = status }
        row.remoteAddress = info.remoteAddress
        row.clientLibrary = info.clientLibrary
        row.clientVersion = info.clientVersion
        return row
    }

    func handle(value: Value, logger: Logger) async {
        await WebSocketServerPipeline.handle(value.upgradeResult, channel: value.channel, logger: logger) { http in
            await handleHTTP(asyncChannel: http, logger: logger)
        }
    }
}
