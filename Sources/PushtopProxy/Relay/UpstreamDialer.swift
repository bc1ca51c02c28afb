import NIOCore
import NIOHTTP1
import PusherChannels
import PushtopServer

/// Why the upstream's end of a connection could not be opened.
enum UpstreamFailure: Error, CustomStringConvertible {
    /// The upstream answered the upgrade with another status.
    case refused(status: Int, reason: String)
    /// No connection (refused, timed out, TLS failed).
    case unreachable(String)

    var description: String {
        switch self {
        case .refused(let status, let reason):
            return "the upstream refused the WebSocket upgrade: HTTP \(status) \(reason)"
        case .unreachable(let why): return "the upstream cannot be reached: \(why)"
        }
    }
}

/// Opens the upstream's end of one relayed connection, on the client's event loop, through `PusherChannels`'
/// `WebSocketDialer` (so what the upstream sends with its `101`, a refusal and the end of the connection, reaches
/// the relay): the client's request target, its headers (without the hop-by-hop ones and the handshake's own) with
/// `X-Forwarded-For`, and the proxy's own permessage-deflate offer (each side negotiates on its own).
enum UpstreamDialer {
    /// Headers of the client's request that are not forwarded: the handshake's (the dial makes the upstream's own)
    /// and the hop-by-hop ones.
    static let notForwarded: Set<String> = [
        "host", "connection", "upgrade", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions",
        "sec-websocket-accept", "content-length", "transfer-encoding", "keep-alive", "proxy-connection", "te",
        "trailer",
    ]

    /// The upstream's 101 answer, once its ``RelayEnd`` is in the pipeline. Called on `eventLoop`, the relay's.
    static func connect(
        core: ProxyCore, relay: Relay, head: HTTPRequestHead, on eventLoop: any EventLoop
    ) -> EventLoopFuture<HTTPResponseHead> {
        let upstream = core.upstream
        let maxBytes = core.configuration.maxMessageBytes
        let dialer = WebSocketDialer(
            url: upstream,
            target: upstream.target == "/" ? head.uri : String(upstream.target.split(separator: "?")[0]) + head.uri,
            headers: forwardedHeaders(head.headers, relay: relay),
            offerDeflate: core.configuration.compression && offersDeflate(head.headers), tls: core.sslContext,
            maxFrameSize: maxBytes)
        // The dial's callback runs on `eventLoop` (the upstream's channel is on it): the relay is bound to it.
        let bound = NIOLoopBound(relay, eventLoop: eventLoop)
        let dial = dialer.dial(on: eventLoop) { channel, response in
            let inflater = try MessageInflater.negotiated(by: response)
            try channel.pipeline.syncOperations.addHandler(
                RelayEnd(side: .upstream, relay: bound.value, maxMessageBytes: maxBytes, upstreamInflater: inflater))
        }
        return dial.upgraded.flatMapErrorThrowing { error in
            switch error {
            case WebSocketDialError.refused(let status, let reason):
                throw UpstreamFailure.refused(status: status, reason: reason)
            case WebSocketDialError.connect(let cause):
                core.noteOpenFailure(cause)
                throw UpstreamFailure.unreachable(WebSocketTransport.describe(error))
            default:
                throw UpstreamFailure.unreachable(WebSocketTransport.describe(error))
            }
        }
    }

    /// The client's headers for the upstream: the handshake's and hop-by-hop ones out (the dial writes `Host` and
    /// the deflate offer), `X-Forwarded-For` with the client's address added, `X-Forwarded-Host`.
    static func forwardedHeaders(_ incoming: HTTPHeaders, relay: Relay) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var forwardedFor: [String] = []
        for (name, value) in incoming {
            let lower = name.lowercased()
            if lower == "x-forwarded-for" {
                forwardedFor.append(value)
                continue
            }
            guard !notForwarded.contains(lower) else { continue }
            headers.add(name: name, value: value)
        }
        if !relay.remoteHost.isEmpty { forwardedFor.append(relay.remoteHost) }
        if !forwardedFor.isEmpty { headers.add(name: "X-Forwarded-For", value: forwardedFor.joined(separator: ", ")) }
        if let host = incoming.first(name: "host"), !incoming.contains(name: "x-forwarded-host") {
            headers.add(name: "X-Forwarded-Host", value: host)
        }
        return headers
    }
}

extension UpstreamDialer {
    /// Whether the client's upgrade offers permessage-deflate (in any of its `Sec-WebSocket-Extensions` headers):
    /// asked of the upstream only then, so a client that does not compress costs the upstream no deflating and the
    /// proxy no inflating (on loopback, a tenth of the proxy's CPU per frame).
    static func offersDeflate(_ headers: HTTPHeaders) -> Bool {
        headers["sec-websocket-extensions"].flatMap(ExtensionList.parse).contains {
            $0.name.lowercased() == "permessage-deflate"
        }
    }
}
