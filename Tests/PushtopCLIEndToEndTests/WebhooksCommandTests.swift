import AsyncHTTPClient
import Foundation
import NIOCore
import PusherProtocol
import PushtopConformance
import PushtopTestSupport
import Testing

/// `pushtop webhooks` as a user runs it: in front of `pushtop serve`'s real webhooks, a scripted sender that gets
/// things wrong, and an app endpoint it forwards to.
@Suite(.serialized) struct WebhooksCommandTests {
    /// `pushtop webhooks --listen 127.0.0.1:0 ARGS` and the port it says it listens on.
    static func start(_ arguments: [String]) async throws -> (process: PushtopProcess, port: Int) {
        let process = try PushtopProcess(["webhooks", "--listen", "127.0.0.1:0"] + arguments)
        try await waitUntil(timeout: 30, "webhooks to say where it listens (stderr: \(process.stderr.suffix(300)))") {
            process.stderr.contains("listening on http://")
        }
        guard let range = process.stderr.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
            let port = Int(process.stderr[range].split(separator: ":")[1])
        else { throw TestFailure("no port in '\(process.stderr)'") }
        return (process, port)
    }

    /// The serve node's app.
    static let app = ["--app-id", ServeNode.appID, "--key", ServeNode.key, "--secret", ServeNode.secret]

    struct Answer {
        var status: Int
        var body: String
    }

    /// POSTs `body` to the receiver, signed with `secret` (or with `signature`), with `headers` besides.
    static func post(
        port: Int, path: String = "/pusher/webhooks", body: String, key: String = ServeNode.key,
        secret: String? = ServeNode.secret, signature: String? = nil, headers: [(String, String)] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "X-Pusher-Key", value: key)
        if let sig = signature ?? secret.map({ sign(body, $0) }) {
            request.headers.add(name: "X-Pusher-Signature", value: sig)
        }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        let answer = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), body: String(buffer: answer))
    }

    static func sign(_ body: String, _ secret: String) -> String {
        ChannelAuthSignature.hmacHex(secret: secret, message: body)
    }

    static var nowMs: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A well-formed payload of `events` (JSON objects), `time_ms` now.
    static func payload(_ events: String) -> String { #"{"time_ms":\#(nowMs),"events":[\#(events)]}"# }

    /// A `pushtop watch` connected to `node`, subscribed to `channel`.
    static func watch(_ node: ServeNode, _ channel: String) async throws -> PushtopProcess {
        let watch = try PushtopProcess([
            "watch", "--key", node.key, "--host", "127.0.0.1", "--port", String(node.port), "--no-tls", channel,
        ])
        try await watch.waitForLine("subscribed to \(channel)") {
            $0["type"] as? String == "subscribed" && $0["channel"] as? String == channel
        }
        return watch
    }

    static func row(_ type: String, _ extra: @escaping @Sendable ([String: Any]) -> Bool = { _ in true })
        -> @Sendable ([String: Any]) -> Bool
    {
        { $0["type"] as? String == type && extra($0) }
    }

    @Test func verifiesServesRealWebhooks() async throws {
        let (webhooks, port) = try await Self.start(Self.app)
        let node = try await ServeNode.start(extra: [
            "--webhook", "http://127.0.0.1:\(port)/pusher/webhooks", "--webhook-grace", "0",
        ])
        let watch = try await Self.watch(node, "orders")
        let occupied = try await webhooks.waitForLine(
            "occupied", Self.row("occupied") { $0["channel"] as? String == "orders" })
        #expect(occupied["source"] as? String == "webhook")
        #expect(occupied["app_id"] as? String == ServeNode.appID)
        #expect(occupied["event"] as? String == "channel_occupied")
        watch.signal(SIGTERM)
        #expect(try await watch.exitCode() == 0)
        try await webhooks.waitForLine("vacated", Self.row("vacated") { $0["channel"] as? String == "orders" })
        // serve signs correctly and keeps Pusher's format: nothing rejected, no problem.
        #expect(!webhooks.lines.contains { $0.contains("webhook_rejected") || $0.contains("webhook_problem") })
        await node.stop()
        webhooks.signal(SIGINT)
        #expect(try await webhooks.exitCode() == 0)
    }

    @Test func rejectsAWronglySignedRequestWithItsCause() async throws {
        let (webhooks, port) = try await Self.start(Self.app + ["--app", "7:other-key:other-secret"])
        let body = Self.payload(#"{"name":"channel_occupied","channel":"a"}"#)
        let wrong = try await Self.post(port: port, body: body, secret: "not-the-secret")
        #expect(wrong.status == 401)
        let rejected = try await webhooks.waitForLine("rejected", Self.row("webhook_rejected"))
        #expect(rejected["cause"] as? String == "wrong secret")
        #expect(rejected["expected_signature"] as? String == Self.sign(body, ServeNode.secret))
        #expect(rejected["received_signature"] as? String == Self.sign(body, "not-the-secret"))
        #expect(rejected["events"] as? [String] == ["channel_occupied"])
        // No row for the events of a request that does not verify.
        #expect(!webhooks.objects.contains { $0["type"] as? String == "occupied" })

        #expect(try await Self.post(port: port, body: body, secret: "other-secret").status == 401)
        try await webhooks.waitForLine(
            "another app's secret",
            Self.row("webhook_rejected") {
                $0["cause"] as? String == "key of another app"
            })
        // A proxy pretty-printed the body the server signed.
        let pretty = body.replacingOccurrences(of: ",", with: ",\n  ")
        #expect(
            try await Self.post(port: port, body: pretty, signature: Self.sign(body, ServeNode.secret)).status == 401)
        try await webhooks.waitForLine(
            "re-encoded",
            Self.row("webhook_rejected") {
                $0["cause"] as? String == "body re-encoded by a proxy"
            })
        #expect(try await Self.post(port: port, body: body, key: "who", secret: "whose").status == 401)
        try await webhooks.waitForLine(
            "unknown key",
            Self.row("webhook_rejected") {
                $0["cause"] as? String == "unknown key"
            })
        // The secret never appears in the output.
        #expect(!webhooks.lines.joined().contains(ServeNode.secret))
        webhooks.signal(SIGINT)
        #expect(try await webhooks.exitCode() == 0)
    }

    /// The deviations of soketi #137, PR #438, #616 and #830, from a scripted sender.
    @Test func flagsEachDeviationFromAScriptedSender() async throws {
        let node = try await ServeNode.start()
        let watch = try await Self.watch(node, "busy")
        let (webhooks, port) = try await Self.start(Self.app + ["--check-api", "--port", String(node.port)])
        func send(_ body: String) async throws {
            #expect(try await Self.post(port: port, body: body).status == 200)
        }
        func expectProblem(_ problem: String, channel: String? = nil) async throws {
            try await webhooks.waitForLine(
                problem,
                Self.row("webhook_problem") {
                    $0["problem"] as? String == problem && (channel == nil || $0["channel"] as? String == channel)
                })
        }
        // soketi #137: a bare event, not wrapped in events.
        try await send(#"{"name":"channel_occupied","channel":"bare","time_ms":\#(Self.nowMs)}"#)
        try await expectProblem("unwrapped_events")
        try await send(#"{"events":[{"name":"channel_occupied","channel":"t"}]}"#)
        try await expectProblem("invalid_time_ms")
        try await send(Self.payload(#"{"name":"member_added","channel":"presence-x"}"#))
        try await expectProblem("missing_fields", channel: "presence-x")
        // soketi PR #438: two nodes send the same event, at the same time (the auditor's window is 1 s: sent one after
        // the other, two posts on a loaded machine can be further apart than that).
        let twice = Self.payload(#"{"name":"channel_occupied","channel":"dup"}"#)
        async let first: Void = send(twice)
        async let second: Void = send(twice)
        _ = try await (first, second)
        try await expectProblem("duplicate_event", channel: "dup")
        // soketi #830: member_removed undone at once (in one batch: two posts on a loaded machine can arrive more than
        // the 3 s grace apart).
        try await send(
            Self.payload(
                #"{"name":"member_removed","channel":"presence-room","user_id":"7"},"#
                    + #"{"name":"member_added","channel":"presence-room","user_id":"7"}"#))
        try await expectProblem("no_grace", channel: "presence-room")
        // soketi #616: vacated while the HTTP API still lists the watch's subscription.
        try await send(Self.payload(#"{"name":"channel_vacated","channel":"busy"}"#))
        let vacated = try await webhooks.waitForLine(
            "vacated_while_subscribed",
            Self.row("webhook_problem") {
                $0["problem"] as? String == "vacated_while_subscribed"
            })
        #expect(vacated["channel"] as? String == "busy")
        #expect(vacated["subscription_count"] as? Int == 1)
        // An empty channel vacated is fine.
        try await send(Self.payload(#"{"name":"channel_vacated","channel":"empty"}"#))
        try await webhooks.waitForLine("vacated empty", Self.row("vacated") { $0["channel"] as? String == "empty" })
        #expect(
            !webhooks.objects.contains {
                $0["problem"] as? String == "vacated_while_subscribed" && $0["channel"] as? String == "empty"
            })
        watch.signal(SIGTERM)
        _ = try await watch.exitCode()
        await node.stop()
        webhooks.signal(SIGINT)
        #expect(try await webhooks.exitCode() == 0)
    }

    @Test func aClientEventWhoseDataIsNotAStringIsFlaggedAndKept() async throws {
        let (webhooks, port) = try await Self.start(Self.app)
        let body = Self.payload(
            #"{"name":"client_event","channel":"private-a","event":"client-typing","data":{"typing":true},"#
                + #""socket_id":"1.2","user_id":"7"}"#)
        #expect(try await Self.post(port: port, body: body).status == 200)
        let problem = try await webhooks.waitForLine(
            "wrong_type", Self.row("webhook_problem") { $0["problem"] as? String == "wrong_type" })
        #expect(
            problem["cause"] as? String
                == #"client_event data is an object, not a string: {"typing":true} (the official SDKs hand data to apps as a string)"#
        )
        #expect(problem["channel"] as? String == "private-a")
        let row = try #require(webhooks.objects.first { $0["type"] as? String == "client_event" })
        #expect(row["data"] as? String == #"{"typing":true}"#, "the row keeps what the server sent")
        webhooks.signal(SIGINT)
        #expect(try await webhooks.exitCode() == 0)
    }

    @Test func forwardsByteForByteAndAnswersWithTheAppsStatus() async throws {
        let app = try await WebhookListener.start(host: "127.0.0.1", port: 0)
        let (webhooks, port) = try await Self.start(Self.app + ["--forward", "http://\(app.address)/base"])
        // Odd but legal bytes: spaces, unicode, escaped slashes, a trailing newline.
        let body =
            "{\"time_ms\": \(Self.nowMs),\n \"events\":[{\"name\":\"client_event\",\"channel\":\"private-\\/é\","
            + "\"event\":\"client-x\",\"data\":\"{\\\"t\\\":\\\"☃\\\"}\",\"socket_id\":\"1.2\"}]}\n"
        let sent = try await Self.post(
            port: port, path: "/pusher/webhooks?via=pushtop", body: body,
            headers: [("X-Custom", "a,  b ;c"), ("X-Request-Id", "42")])
        #expect(sent.status == 200)
        let got = try #require(await app.waitFor(10) { $0.path.hasPrefix("/base/pusher/webhooks") })
        #expect(got.path == "/base/pusher/webhooks?via=pushtop")
        #expect(got.method == "POST")
        #expect(got.body == Array(body.utf8))
        #expect(got.headers["x-pusher-signature"] == Self.sign(body, ServeNode.secret))
        #expect(got.headers["x-pusher-key"] == ServeNode.key)
        #expect(got.headers["x-custom"] == "a,  b ;c")
        #expect(got.headers["x-request-id"] == "42")
        #expect(got.headers["content-type"] == "application/json")
        let forwarded = try await webhooks.waitForLine(
            "webhook_sent", Self.row("webhook_sent") { $0["status"] as? Int == 200 })
        #expect(forwarded["url"] as? String == "http://\(app.address)/base/pusher/webhooks?via=pushtop")
        #expect(forwarded["events"] as? [String] == ["client_event"])
        #expect(forwarded["app_id"] as? String == ServeNode.appID)
        try await webhooks.waitForLine(
            "client_event", Self.row("client_event") { $0["event"] as? String == "client-x" })

        // The app's status reaches the sender, and shows.
        app.fail(1, status: 500) { _ in true }
        #expect(
            try await Self.post(port: port, body: Self.payload(#"{"name":"cache_miss","channel":"cache-a"}"#)).status
                == 500)
        try await webhooks.waitForLine("webhook_failed", Self.row("webhook_failed") { $0["status"] as? Int == 500 })
        // A rejected request is forwarded all the same (pushtop stays transparent), and shown rejected.
        let before = app.received.count
        #expect(try await Self.post(port: port, body: body, secret: "wrong").status == 200)
        #expect(app.received.count == before + 1)
        try await webhooks.waitForLine("rejected", Self.row("webhook_rejected"))
        webhooks.signal(SIGINT)
        #expect(try await webhooks.exitCode() == 0)
        await app.stop()
    }

    @Test func aForwardThatFailsIsShownNotSwallowed() async throws {
        // A port nothing listens on (nor will, while the test runs: another test's server could take a freed one).
        let dead = try DeadPort()
        defer { withExtendedLifetime(dead) {} }
        let address = dead.address
        let (webhooks, port) = try await Self.start(
            Self.app + ["--forward", "http://\(address)/", "--forward-timeout", "2"])
        let answer = try await Self.post(port: port, body: Self.payload(#"{"name":"channel_occupied","channel":"a"}"#))
        #expect(answer.status == 502)
        let failed = try await webhooks.waitForLine(
            "forward_failed",
            Self.row("webhook_problem") {
                $0["problem"] as? String == "forward_failed"
            })
        #expect((failed["url"] as? String)?.hasPrefix("http://\(address)/pusher/webhooks") == true)
        #expect((failed["cause"] as? String)?.isEmpty == false)
        webhooks.signal(SIGINT)
        #expect(try await webhooks.exitCode() == 0)
    }

    @Test func badInputGetsAClearAnswerAndARow() async throws {
        let (webhooks, port) = try await Self.start(Self.app)
        let notJSON = try await Self.post(port: port, body: "event=channel_occupied&channel=a")
        #expect(notJSON.status == 400)
        try await webhooks.waitForLine(
            "not_json", Self.row("webhook_problem") { $0["problem"] as? String == "not_json" })
        let huge = String(repeating: "x", count: 3 << 20)
        #expect(try await Self.post(port: port, body: huge, secret: nil, signature: "0").status == 413)
        try await webhooks.waitForLine(
            "body_too_large",
            Self.row("webhook_problem") {
                $0["problem"] as? String == "body_too_large" && $0["status"] as? Int == 413
            })
        // A flood: 100 senders that start a request and never finish it take every place; the next ones get 503
        // at once (counted in an overloaded row), and when the senders go, it works again.
        var held: [RawSocket] = []
        for _ in 0..<100 {
            let socket = try RawSocket(port: port)
            try socket.send("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
            held.append(socket)
        }
        // Each probe is a sender like the others: one that gets a place (one the flood left free, or one a held
        // connection gave back on a loaded machine) keeps it, so the places fill up and the next probe is refused.
        var answers: [String: Int] = [:]
        do {
            try await waitUntil(timeout: 30, "a 503 once every place is taken") {
                let socket = try RawSocket(port: port, timeout: 1)
                try socket.send("POST /late HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
                guard let head = try? socket.readHTTPHead() else {
                    answers["no answer: holds a place", default: 0] += 1
                    held.append(socket)
                    return false
                }
                socket.close()
                let status = String(head.prefix { $0 != "\r" })
                answers[status, default: 0] += 1
                return status.hasPrefix("HTTP/1.1 503")
            }
        } catch {
            throw TestFailure("\(error); the probes' answers: \(answers)")
        }
        let overloaded = try await webhooks.waitForLine(
            "overloaded",
            Self.row("webhook_problem") {
                $0["problem"] as? String == "overloaded"
            })
        #expect((overloaded["dropped"] as? Int ?? 0) >= 1)
        for socket in held { socket.close() }
        let body = Self.payload(#"{"name":"channel_occupied","channel":"after"}"#)
        try await waitUntil(timeout: 10, "a place again once the senders are gone") {
            try await Self.post(port: port, body: body).status == 200
        }
        webhooks.signal(SIGINT)
        #expect(try await webhooks.exitCode() == 0)
    }

    @Test func aSilentSenderIsCutOff() async throws {
        let idleTimeout = 1.0
        let (webhooks, port) = try await Self.start(Self.app + ["--idle-timeout", "\(idleTimeout)"])
        // Cut off by the idle timeout, not left open until the client's own read gives up (`closed` is false then).
        let socket = try RawSocket(port: port, timeout: LoadedMachine.bound(idleTimeout))
        try socket.send("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        #expect(socket.readToEnd().closed)
        webhooks.signal(SIGINT)
        #expect(try await webhooks.exitCode() == 0)
    }

    @Test func typesFilterAndCredentialsFromAnEnvFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let env = directory.appendingPathComponent(".env").path
        try "PUSHER_APP_ID=99\nPUSHER_APP_KEY=env-key\nPUSHER_APP_SECRET=env-secret\n".write(
            toFile: env, atomically: true, encoding: .utf8)
        let (webhooks, port) = try await Self.start([
            "--env-file", env, "--type", "vacated", "--type", "webhook_problem",
        ])
        let body = Self.payload(
            #"{"name":"channel_occupied","channel":"a"},{"name":"channel_vacated","channel":"a"}"#)
        // The channel filled again at once after it emptied (one batch: two posts on a loaded machine can arrive
        // more than the 3 s grace apart): no grace.
        let refilled = Self.payload(
            #"{"name":"channel_occupied","channel":"a"},{"name":"channel_vacated","channel":"a"},"#
                + #"{"name":"channel_occupied","channel":"a"}"#)
        #expect(try await Self.post(port: port, body: refilled, key: "env-key", secret: "env-secret").status == 200)
        let vacated = try await webhooks.waitForLine("vacated", Self.row("vacated"))
        #expect(vacated["app_id"] as? String == "99")
        try await webhooks.waitForLine(
            "no_grace", Self.row("webhook_problem") { $0["problem"] as? String == "no_grace" })
        // Only the types asked for.
        #expect(webhooks.objects.allSatisfy { ["vacated", "webhook_problem"].contains($0["type"] as? String ?? "") })
        webhooks.signal(SIGINT)
        #expect(try await webhooks.exitCode() == 0)

        // No credentials: every webhook is shown, unverified, and stderr says so.
        let (open, openPort) = try await Self.start([])
        #expect(try await Self.post(port: openPort, body: body, secret: "anything").status == 200)
        try await open.waitForLine("occupied", Self.row("occupied"))
        #expect(open.stderr.contains("signatures are not checked"))
        open.signal(SIGINT)
        #expect(try await open.exitCode() == 0)
    }

    @Test func anAddressInUseIsAnError() async throws {
        let (first, port) = try await Self.start([])
        let second = try PushtopProcess(["webhooks", "--listen", "127.0.0.1:\(port)"])
        #expect(try await second.exitCode() == 1)
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port)"), "\(second.stderr)")
        first.signal(SIGINT)
        #expect(try await first.exitCode() == 0)
    }

    @Test func badUsageIsRefused() async throws {
        try await PushtopProcess.expectUsageError(["webhooks", "--listen", "nowhere"], mentioning: "--listen")
        try await PushtopProcess.expectUsageError(
            ["webhooks", "--listen", "127.0.0.1:0", "--type", "nonsense"], mentioning: "--type")
        try await PushtopProcess.expectUsageError(
            ["webhooks", "--listen", "127.0.0.1:0", "--forward", "ftp://x"], mentioning: "--forward")
    }
}
