import Foundation
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

/// One connection to the proxy: a WebSocket upgrade (any path: Pusher's `/app/{key}`) becomes a ``Relay`` once
/// the upstream accepted the same upgrade; plain HTTP goes to Hummingbird's router (the console feed, the control
/// endpoint, and the HTTP API passed through).
///
/// Modelled on `PusherServerChannel` (the server's): NIO's typed upgrader, then our handler on the loop.
struct ProxyServerChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        case webSocket
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    /// The relay between the client's upgrade request and its upgraded pipeline (one connection, one loop).
    final class PendingRelay: @unchecked Sendable {
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
            let pending = PendingRelay()
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: core.configuration.maxMessageBytes,
                enableAutomaticErrorHandling: false,
                shouldUpgrade: { channel, head in
                    Self.dial(core: core, channel: channel, head: head, pending: pending)
                },
                upgradePipelineHandler: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        guard let relay = pending.relay else { throw ChannelError.inappropriateOperationForState }
                        try channel.pipeline.syncOperations.addHandler(
                            RelayEnd(
                                side: .client, relay: relay, maxMessageBytes: core.configuration.maxMessageBytes,
                                clientDeflate: pending.deflate))
                        return .webSocket
                    }
                }
            )
            let upgradeConfiguration = NIOTypedHTTPServerUpgradeConfiguration<UpgradeResult>(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let operations = channel.pipeline.syncOperations
                        try operations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try operations.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
                        return .notUpgraded(
                            try NIOAsyncChannel(
                                wrappingChannelSynchronously: channel,
                                configuration: .init(isOutboundHalfClosureEnabled: true)))
                    }
                }
            )
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgradeConfiguration)
            configuration.enablePipelining = false
            let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                configuration: configuration)
            return Value(upgradeResult: upgraded, channel: channel)
        }
    }

    /// Opens the upstream's end for a client's upgrade; the client's upgrade succeeds only once the upstream's
    /// did (a refused or unreachable upstream, or an `outage` fault, fails it: the client's socket is closed).
    private static func dial(core: ProxyCore, channel: any Channel, head: HTTPRequestHead, pending: PendingRelay)
        -> EventLoopFuture<HTTPHeaders?>
    {
        let query = ProxyQuery.parse(head.uri)
        var connectionInfo = ConsoleConnectionInfo(head: head, query: query, remote: channel.remoteAddress)
        connectionInfo.tls = false
        let info = connectionInfo
        if let entry = core.faults.outage() {
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
        return UpstreamDialer.connect(core: core, relay: relay, head: head, on: channel.eventLoop).map {
            _ -> HTTPHeaders? in
            core.counters.connected()
            pending.relay = relay
            var headers = HTTPHeaders()
            if core.configuration.compression, let deflate = PerMessageDeflate.negotiate(head.headers) {
                pending.deflate = deflate
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
        do {
            switch try await value.upgradeResult.get() {
            case .webSocket:
                return
            case .notUpgraded(let http):
                await handleHTTP(asyncChannel: http, logger: logger)
            }
        } catch {
            logger.debug("connection ended before it was relayed", metadata: ["error": "\(error)"])
            try? await value.channel.close()
        }
    }
}

/// The decoded query of a request target (the first of a repeated name wins).
enum ProxyQuery {
    static func parse(_ uri: String) -> [String: String] {
        guard let mark = uri.firstIndex(of: "?") else { return [:] }
        var result: [String: String] = [:]
        for pair in uri[uri.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let name = decode(parts[0])
            guard result[name] == nil else { continue }
            result[name] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return result
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
