import Foundation
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// `watch` on the event-loop transport: what it prints after an unsubscribe, the close handshake on every graceful
/// exit (also under load), `--frames`, and `--ca-file`.
@Suite(.serialized, .timeLimit(.minutes(1))) struct WatchTransportTests {
    func args(port: Int, _ extra: [String]) -> [String] {
        [
            "watch", "--key", "test-key", "--host", "127.0.0.1", "--port", String(port), "--no-tls",
            "--min-delay", "0.05", "--max-delay", "0.2",
        ] + extra
    }

    @Test func nothingOfAChannelIsPrintedAfterItsUnsubscribedLine() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let watch = try PushtopProcess(args(port: server.port, ["--stdin", "ticker", "other"]))
        try await watch.waitForLine("ticker subscribed") {
            $0["type"] as? String == "subscribed" && $0["channel"] as? String == "ticker"
        }
        try await watch.waitForLine("other subscribed") {
            $0["type"] as? String == "subscribed" && $0["channel"] as? String == "other"
        }
        watch.send(#"{"action":"unsubscribe","channel":"ticker"}"#)
        let conn = try await server.connection(1)
        try await conn.waitForMessage { $0.event == "pusher:unsubscribe" }
        // An event already in flight when the unsubscribe left.
        conn.send(PusherMessage(event: "late", channel: "ticker", data: .string("{}")))
        conn.send(PusherMessage(event: "marker", channel: "other", data: .string("{}")))
        try await watch.waitForLine("marker") { $0["event"] as? String == "marker" }
        let lines = watch.lines
        let unsubscribed = try #require(lines.firstIndex(of: #"{"type":"unsubscribed","channel":"ticker"}"#))
        #expect(
            !lines[unsubscribed...].contains { $0.contains(#""channel":"ticker""#) && $0.contains(#""type":"event""#) })
        watch.closeStdin()
        #expect(try await watch.exitCode() == 0)
    }

    /// Ends `watch` (stdin EOF or a signal) while the server floods it, and checks that a close frame reached the
    /// server before the TCP connection ended.
    func exitSendsACloseFrameUnderLoad(_ end: (PushtopProcess) -> Void) async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let proxy = try await FaultProxy.start(upstreamPort: server.port, observing: true)
        defer { proxy.stop() }
        let watch = try PushtopProcess(args(port: proxy.port, ["--stdin", "ticker"]))
        try await watch.waitForLine("subscribed") { $0["type"] as? String == "subscribed" }
        let conn = try await server.connection(1)
        let data = String(repeating: "x", count: 100)
        for i in 0..<3000 { conn.send(PusherMessage(event: "e\(i)", channel: "ticker", data: .string(data))) }
        try await watch.waitForLine("events flowing") { $0["event"] as? String == "e100" }
        end(watch)
        #expect(try await watch.exitCode() == 0)
        try await waitUntil { proxy.connections.first?.clientEnded == true }
        #expect(proxy.connections.first?.closeFrameFromClient == true, "a close frame before the TCP end")
        #expect(proxy.connections.first?.closeBeforeEnd == true)
    }

    @Test func endOfStdinSendsACloseFrameUnderLoad() async throws {
        try await exitSendsACloseFrameUnderLoad { $0.closeStdin() }
    }

    @Test func sigintSendsACloseFrameUnderLoad() async throws {
        try await exitSendsACloseFrameUnderLoad { $0.signal(SIGINT) }
    }

    @Test func sigtermSendsACloseFrameUnderLoad() async throws {
        try await exitSendsACloseFrameUnderLoad { $0.signal(SIGTERM) }
    }

    @Test func framesPrintsEveryFrameInBothDirections() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let watch = try PushtopProcess(args(port: server.port, ["--frames", "ticker"]))
        try await watch.waitForLine("subscribed") { $0["type"] as? String == "subscribed" }
        let text = #"{"event":"price","channel":"ticker","data":"{\"p\":1}"}"#
        try await server.connection(1).send(text)
        let inbound = try await watch.waitForLine("inbound frame") {
            $0["type"] as? String == "frame" && $0["text"] as? String == text
        }
        #expect(
            inbound["dir"] as? String == "in" && inbound["opcode"] as? String == "text"
                && inbound["size"] as? Int == text.utf8.count)
        #expect((inbound["t"] as? Double ?? 0) > 1_700_000_000)
        try await watch.waitForLine("event") { $0["type"] as? String == "event" && $0["event"] as? String == "price" }
        let subscribe = try await watch.waitForLine("outbound subscribe") {
            $0["type"] as? String == "frame" && $0["dir"] as? String == "out"
        }
        #expect(subscribe["text"] as? String == #"{"event":"pusher:subscribe","data":{"channel":"ticker"}}"#)
        watch.signal(SIGTERM)
        #expect(try await watch.exitCode() == 0)
        #expect(
            watch.lines.contains {
                $0.hasPrefix(#"{"type":"frame","dir":"out""#) && $0.contains(#""opcode":"close""#)
                    && $0.contains(#""code":1000"#)
            })
        #expect(watch.objects.count == watch.lines.count, "every line is one JSON object")
    }

    @Test func caFileLetsWatchTrustAPrivateCA() async throws {
        let certificates = try TestCertificates.make()
        let server = try await ScriptedPusherServer.start(
            transport: .init(tls: try certificates.serverTLSConfiguration()))
        defer { server.stop() }
        let trusted = try PushtopProcess([
            "watch", "--key", "test-key", "--host", "localhost", "--port", String(server.port),
            "--ca-file", certificates.caFile, "ticker",
        ])
        try await trusted.waitForLine("subscribed over TLS") { $0["type"] as? String == "subscribed" }
        trusted.signal(SIGTERM)
        #expect(try await trusted.exitCode() == 0)

        let untrusted = try PushtopProcess([
            "watch", "--key", "test-key", "--host", "localhost", "--port", String(server.port),
            "--max-retries", "1", "--min-delay", "0.05", "ticker",
        ])
        #expect(try await untrusted.exitCode(timeout: 30) == 1)
        #expect(untrusted.stderr.contains("not trusted"))

        try await PushtopProcess.expectUsageError(
            ["watch", "--key", "k", "--ca-file", "/nonexistent.pem", "ticker"], mentioning: "--ca-file")
    }
}
