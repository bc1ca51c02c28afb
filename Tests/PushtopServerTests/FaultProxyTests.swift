import Foundation
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

/// The fault-injecting proxy itself, between a real WebSocket client and the embedded server.
@Suite(.timeLimit(.minutes(1))) struct FaultProxyTests {
    private func url(_ proxy: FaultProxy, _ server: EmbeddedServer) -> String {
        "ws://127.0.0.1:\(proxy.port)/app/\(server.configuration.app.key)?client=test&version=1.0&protocol=7"
    }

    private func pingRoundTrip(_ socket: TestSocket) async throws -> Double {
        let start = ContinuousClock.now
        try await socket.send(PusherMessage(event: PusherEventName.ping, data: .object([:])))
        _ = try await socket.next(PusherEventName.pong, timeout: 5)
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Runs `body` with an embedded server and a fault proxy in front of it, and shuts the proxy down after.
    private func withProxy(_ body: (EmbeddedServer, FaultProxy) async throws -> Void) async throws {
        try await withServer { server in
            let proxy = try await FaultProxy.start(upstreamPort: server.port)
            try await runAndCleanUp({ try await body(server, proxy) }, finally: { await proxy.shutdown() })
        }
    }

    @Test func forwardsBothWaysAndCutsWithResetOrFin() async throws {
        try await withProxy { server, proxy in
            for how in FaultProxy.Cut.allCases {
                let (socket, _) = try await TestSocket.established(url(proxy, server))
                _ = try await pingRoundTrip(socket)
                proxy.cutAll(how)
                // Cut under the WebSocket: the client sees its connection end without a close frame.
                #expect(try await socket.waitForClose(timeout: 5) == nil, "\(how)")
                try await waitUntil(timeout: 5, "the proxy to forget the connection") { proxy.openConnections == 0 }
            }
            #expect(proxy.acceptedConnections == 2)
        }
    }

    /// One proxy for deviations and faults: started with a rewrite (the deviation table's row that drops the
    /// server's `pusher:pong`), it rewrites what the server sends, passes the rest, and still takes its faults.
    @Test func aRewritingProxyRewritesAndStillTakesItsFaults() async throws {
        try await withServer { server in
            let app = server.configuration.app
            let row = try #require(DeviationSetups.all["no-pusher-pong"])
            let proxy = try await FaultProxy.start(
                upstreamPort: server.port, rewriting: .init(row.rewrite, key: app.key, secret: app.secret))
            try await runAndCleanUp(
                {
                    let (socket, _) = try await TestSocket.subscribed(url(proxy, server), to: "t")
                    try await socket.send(PusherMessage(event: PusherEventName.ping, data: .object([:])))
                    // The server answers in order: the pong before this subscription's success, which arrives; the
                    // pong was rewritten away.
                    try await socket.subscribe("u")
                    _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "u")
                    #expect(await socket.all(PusherEventName.pong).isEmpty)
                    proxy.cutAll(.reset)
                    #expect(try await socket.waitForClose(timeout: 5) == nil)
                    try await waitUntil(timeout: 5, "the proxy to forget the connection") { proxy.openConnections == 0 }
                }, finally: { await proxy.shutdown() })
        }
    }

    @Test func stallHoldsTrafficUntilItEndsWithoutClosing() async throws {
        try await withProxy { server, proxy in
            let (socket, _) = try await TestSocket.established(url(proxy, server))
            // From before the stall starts, so that the pong cannot come sooner than the stall's end.
            let stall = Duration.milliseconds(1500)
            let stalled = ContinuousClock.now
            proxy.stall(for: stall)
            _ = try await pingRoundTrip(socket)
            #expect(ContinuousClock.now - stalled >= stall)
            #expect(await socket.finished == false)
            // Then traffic flows again on the same connection: the next ping is answered.
            _ = try await pingRoundTrip(socket)
        }
    }

    @Test func truncateForwardsPartOfTheNextServerChunkThenCloses() async throws {
        try await withProxy { server, proxy in
            let (socket, _) = try await TestSocket.subscribed(url(proxy, server), to: "t")
            proxy.truncateNextServerChunk()
            try await server.hub.publish(
                PublishRequest(channels: ["t"], name: "big", data: String(repeating: "x", count: 4000)))
            _ = try await socket.waitForClose(timeout: 5)
            #expect(await socket.all("big").isEmpty)
        }
    }

    @Test func lostAnswersLetTheRequestActButNeverAnswer() async throws {
        try await withProxy { server, proxy in
            let (watcher, _) = try await TestSocket.subscribed(server.url(), to: "t")
            proxy.loseAnswers()
            let api = PusherAPIClient(
                configuration: PusherAPIConfiguration(
                    appID: server.configuration.app.id,
                    key: server.configuration.app.key, secret: server.configuration.app.secret, host: "127.0.0.1",
                    port: proxy.port))
            // The publish fails for the caller, and the server published it all the same.
            await #expect(throws: (any Error).self) {
                _ = try await api.trigger(channels: ["t"], event: "landed", data: "1")
            }
            _ = try await watcher.next("landed", channel: "t", timeout: 5)
            proxy.loseAnswers(false)
            #expect(try await api.trigger(channels: ["t"], event: "answered", data: "2").status == 200)
            await watcher.close()
        }
    }

    @Test func latencyDelaysEveryChunk() async throws {
        try await withProxy { server, proxy in
            let (socket, _) = try await TestSocket.established(url(proxy, server))
            // A round trip is two chunks: at least twice the latency with it, and then, without it, less than that
            // (a loopback ping on a loaded machine stays well within 2 s).
            let latency = 1.0
            proxy.shape(latency: .milliseconds(Int(latency * 1000)))
            #expect(try await pingRoundTrip(socket) >= 2 * latency)
            proxy.shape()
            // The best of three: chunks already queued behind the old latency may still delay the first.
            var best = Double.infinity
            for _ in 0..<3 { best = min(best, try await pingRoundTrip(socket)) }
            #expect(best < 2 * latency)
        }
    }

    @Test func throttleLimitsBandwidth() async throws {
        try await withProxy { server, proxy in
            let (socket, _) = try await TestSocket.subscribed(url(proxy, server), to: "t")
            proxy.shape(bytesPerSecond: 20_000)
            let start = ContinuousClock.now
            for _ in 0..<4 {
                try await server.hub.publish(
                    PublishRequest(channels: ["t"], name: "chunk", data: String(repeating: "y", count: 5000)))
            }
            for _ in 0..<4 { _ = try await socket.next("chunk", channel: "t", timeout: 10) }
            // 20 KB at 20 KB/s: the first chunk goes at once, the last about 0.75 s later.
            #expect(ContinuousClock.now - start >= .milliseconds(700))
        }
    }

    @Test func listenerDownRefusesConnectionsUntilBroughtUp() async throws {
        try await withProxy { server, proxy in
            let (socket, _) = try await TestSocket.established(url(proxy, server))
            await proxy.takeDown()
            _ = try await socket.waitForClose(timeout: 5)
            let refused = try await TestSocket.connect(url(proxy, server))
            #expect(await refused.finished)
            try await proxy.bringUp()
            _ = try await TestSocket.established(url(proxy, server))
        }
    }
}
