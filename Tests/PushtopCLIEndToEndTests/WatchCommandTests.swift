import Foundation
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// `pushtop watch` as users run it: a subprocess printing JSON lines, reading commands, exiting with codes.
@Suite(.timeLimit(.minutes(1))) struct WatchCommandTests {
    func args(_ server: ScriptedPusherServer, _ extra: [String]) -> [String] {
        [
            "watch", "--key", "test-key", "--host", "127.0.0.1", "--port", String(server.port), "--no-tls",
            "--min-delay", "0.05", "--max-delay", "0.2",
        ] + extra
    }

    @Test func printsStatesSubscriptionsAndEventsAsJSONLines() async throws {
        var behavior = ScriptedPusherServer.Behavior()
        behavior.presenceMembers = [PresenceMember(userID: "u2", userInfo: ["name": "Two"])]
        let server = try await ScriptedPusherServer.start(behavior)
        defer { server.stop() }
        let watch = try PushtopProcess(args(server, ["--secret", "s", "--user-id", "u1", "ticker", "presence-room"]))
        try await watch.waitForLine("connected") {
            $0["type"] as? String == "state" && $0["current"] as? String == "connected"
        }
        try await watch.waitForLine("presence subscribed") {
            $0["type"] as? String == "subscribed" && $0["channel"] as? String == "presence-room"
        }
        try await watch.waitForLine("ticker subscribed") {
            $0["type"] as? String == "subscribed" && $0["channel"] as? String == "ticker"
        }
        let conn = try await server.connection(1)
        conn.send(PusherMessage(event: "price", channel: "ticker", data: .string(#"{"p":1.5}"#)))
        conn.send(PusherMessage(event: "client-hi", channel: "presence-room", data: .string("plain"), userID: "u2"))
        conn.send(
            PusherMessage(
                event: "pusher_internal:member_added", channel: "presence-room",
                data: .string(#"{"user_id":"u3","user_info":{"n":3}}"#)))
        conn.send(
            PusherMessage(
                event: "pusher_internal:member_removed", channel: "presence-room", data: .string(#"{"user_id":"u3"}"#)))
        conn.send(
            PusherMessage(
                event: "pusher_internal:subscription_count", channel: "ticker",
                data: .string(#"{"subscription_count":3}"#)))
        conn.send(#"{"event":"pusher:error","data":{"code":4301,"message":"slow down"}}"#)
        try await watch.waitForLine("error") { $0["type"] as? String == "error" }
        watch.signal(SIGTERM)
        #expect(try await watch.exitCode() == 0)

        let lines = watch.lines
        #expect(lines.contains(#"{"type":"state","previous":"initialized","current":"connecting"}"#))
        #expect(lines.contains(#"{"type":"state","previous":"connecting","current":"connected","socket_id":"1.1001"}"#))
        #expect(
            lines.contains(
                #"{"type":"subscribed","channel":"presence-room","me":"u1","members":[{"user_id":"u2","user_info":{"name":"Two"}},{"user_id":"u1","user_info":null}]}"#
            ))
        #expect(lines.contains(#"{"type":"subscribed","channel":"ticker"}"#))
        #expect(lines.contains(#"{"type":"event","channel":"ticker","event":"price","data":{"p":1.5}}"#))
        #expect(
            lines.contains(
                #"{"type":"event","channel":"presence-room","event":"client-hi","data":"plain","user_id":"u2"}"#))
        #expect(
            lines.contains(#"{"type":"member_added","channel":"presence-room","user_id":"u3","user_info":{"n":3}}"#))
        #expect(lines.contains(#"{"type":"member_removed","channel":"presence-room","user_id":"u3"}"#))
        #expect(lines.contains(#"{"type":"subscription_count","channel":"ticker","count":3}"#))
        #expect(lines.contains(#"{"type":"error","code":4301,"message":"slow down"}"#))
        #expect(
            lines.last == #"{"type":"state","previous":"connected","current":"disconnected"}"#,
            "clean disconnect on SIGTERM")
        #expect(watch.objects.count == lines.count, "every line is one JSON object")
    }

    @Test func stdinCommandsSubscribeTriggerAndReportBadLines() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let watch = try PushtopProcess(args(server, ["--secret", "s", "--stdin"]))
        try await watch.waitForLine("connected") { $0["current"] as? String == "connected" }
        watch.send(#"{"action":"subscribe","channel":"private-x"}"#)
        try await watch.waitForLine("subscribed") {
            $0["type"] as? String == "subscribed" && $0["channel"] as? String == "private-x"
        }
        watch.send(#"{"action":"trigger","channel":"private-x","event":"client-typing","data":{"on":true}}"#)
        let conn = try await server.connection(1)
        let sent = try await conn.waitForMessage { $0.event == "client-typing" }
        #expect(sent.data == ["on": true])
        watch.send("this is not json")
        watch.send(#"{"action":"fly"}"#)
        watch.send(#"{"action":"trigger","channel":"private-x","event":"typing"}"#)
        try await waitUntil { watch.objects.filter { $0["type"] as? String == "error" }.count == 3 }
        let errors = watch.objects.filter { $0["type"] as? String == "error" }
        #expect(errors.allSatisfy { $0["code"] is NSNull })
        #expect((errors[1]["message"] as? String)?.contains("unknown action") == true)
        #expect((errors[2]["message"] as? String)?.contains("client-") == true)
        watch.send(#"{"action":"unsubscribe","channel":"private-x"}"#)
        try await watch.waitForLine("unsubscribed") { $0["type"] as? String == "unsubscribed" }
        watch.send(#"{"action":"disconnect"}"#)
        try await watch.waitForLine("disconnected") { $0["current"] as? String == "disconnected" }
        watch.send(#"{"action":"connect"}"#)
        try await waitUntil { watch.objects.filter { $0["current"] as? String == "connected" }.count == 2 }
        watch.closeStdin()
        #expect(try await watch.exitCode() == 0, "end of stdin exits 0")
    }

    @Test func refusedByTheServerExitsOneWithTheReason() async throws {
        var behavior = ScriptedPusherServer.Behavior()
        behavior.refuseWith = (4001, "App key test-key does not exist")
        let server = try await ScriptedPusherServer.start(behavior)
        defer { server.stop() }
        let watch = try PushtopProcess(args(server, ["ticker"]))
        #expect(try await watch.exitCode() == 1)
        #expect(watch.lines.last == #"{"type":"state","previous":"connecting","current":"failed"}"#)
        #expect(watch.lines.contains(#"{"type":"error","code":4001,"message":"App key test-key does not exist"}"#))
        #expect(watch.stderr.contains("4001"))
        #expect(watch.stderr.contains("App key test-key does not exist"))
        #expect(watch.stderr.split(separator: "\n").count == 1, "one line on stderr: \(watch.stderr)")
    }

    @Test func exhaustedRetriesExitOne() async throws {
        // This test's fault proxy with its listener taken down: every attempt is refused (the port is the proxy's, not
        // a stopped server's that a parallel test may be given again).
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let proxy = try await FaultProxy.start(upstreamPort: server.port)
        await proxy.takeDown()
        let watch = try PushtopProcess([
            "watch", "--key", "k", "--host", "127.0.0.1", "--port", String(proxy.port), "--no-tls",
            "--min-delay", "0.05", "--max-delay", "0.1", "--max-retries", "2", "c",
        ])
        #expect(try await watch.exitCode() == 1)
        #expect(watch.objects.filter { $0["type"] as? String == "connecting_in" }.count == 2)
        #expect(watch.lines.last?.contains(#""current":"failed""#) == true)
        #expect(watch.stderr.contains("gave up after 2 failed retries"))
        await proxy.shutdown()
    }

    @Test func sigintExitsZero() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let watch = try PushtopProcess(args(server, ["ticker"]))
        try await watch.waitForLine("connected") { $0["current"] as? String == "connected" }
        watch.signal(SIGINT)
        #expect(try await watch.exitCode() == 0)
    }

    @Test(arguments: [
        (["watch", "--key", "k", "--reconnect", "sometimes", "c"], "sometimes"),
        (["watch", "--key", "k", "--auth-header", "NoColon", "c"], "--auth-header"),
        (["watch", "--key", "k", "--port", "99999", "c"], "--port"),
        (["watch", "--key", "k", "bad channel"], "bad channel"),
        (["watch", "--key", "k", "--min-delay", "5", "--max-delay", "1", "c"], "--min-delay"),
        (["watch", "--key", "k", "--user-info", "{oops", "c"], "--user-info"),
        (["watch", "--key", "k", "--bogus", "c"], "--bogus"),
        (["watch", "c"], "--key"),
    ])
    func usageErrorsExit64NamingTheOption(arguments: [String], named: String) async throws {
        let watch = try PushtopProcess(arguments)
        #expect(try await watch.exitCode() == 64)
        #expect(watch.stderr.contains(named), "stderr: \(watch.stderr)")
        #expect(watch.lines.isEmpty)
    }

    @Test func keyComesFromTheEnvironment() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let watch = try PushtopProcess(
            ["watch", "--host", "127.0.0.1", "--port", String(server.port), "--no-tls", "c"],
            environment: ["PUSHER_APP_KEY": "env-key"])
        try await watch.waitForLine("connected") { $0["current"] as? String == "connected" }
        #expect(server.paths.first?.hasPrefix("/app/env-key?") == true)
        watch.signal(SIGTERM)
        _ = try await watch.exitCode()
    }
}
