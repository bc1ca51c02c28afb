import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// A server behind a real reverse proxy that routes by path: nginx (a child process, hence this tier) passes
/// `/ws/…` with the WebSocket upgrade headers to the embedded server's `/…`, as a deployment at
/// `wss://example.com/ws/app/KEY` does. The client reaches it with ``PusherClientOptions/path``, and not without.
@Suite(.timeLimit(.minutes(1)), .enabled(if: ReverseProxy.isAvailable, "nginx is not installed"))
struct ReverseProxyPathTests {
    @Test func theClientConnectsSubscribesAndReceivesThroughThePathPrefix() async throws {
        try await withServer { server in
            let proxy = try await ReverseProxy.start(location: "/ws/", upstreamPort: server.port)
            defer { proxy.stop() }
            let client = PusherClient(
                options: PusherClientOptions(
                    key: server.configuration.app.key, host: "127.0.0.1", port: proxy.port, path: "/ws",
                    connection: ConnectionConfiguration(useTLS: false)))
            let recorder = EventRecorder(client)
            try await client.subscribe("news")
            await client.connect()
            try await recorder.wait("subscribed through nginx") { $0.isSubscribed("news") }
            _ = try await server.api.trigger(channels: ["news"], event: "story", data: #"{"id":7}"#)
            try await waitUntil("the event through nginx") {
                recorder.channelEvents.contains { $0.name == "story" && $0.dataText == #"{"id":7}"# }
            }
            await client.shutdown()
        }
    }

    @Test func withoutThePrefixTheProxyAnswers404() async throws {
        try await withServer { server in
            let proxy = try await ReverseProxy.start(location: "/ws/", upstreamPort: server.port)
            defer { proxy.stop() }
            let client = PusherClient(
                options: PusherClientOptions(
                    key: server.configuration.app.key, host: "127.0.0.1", port: proxy.port,
                    connection: ConnectionConfiguration(
                        useTLS: false, reconnect: .init(minDelay: 0.01, maxDelay: 0.01, maxRetries: 1, jitter: 0))))
            let recorder = EventRecorder(client)
            await client.connect()
            try await recorder.waitForState(.failed)
            let reasons = recorder.all.compactMap {
                if case .closed(let c) = $0 { return c.reason } else { return nil }
            }
            #expect(reasons.contains { $0.contains("404") }, "\(reasons)")
            await client.shutdown()
        }
    }
}
