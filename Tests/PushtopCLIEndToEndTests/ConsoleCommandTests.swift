import Foundation
import PusherProtocol
import PushtopTestSupport
import Testing

/// `pushtop console` against a real `pushtop serve`: a client connects, subscribes, receives a triggered event and
/// leaves; the console prints each step as a JSON line, `--type` filters them, `--record` keeps them for
/// `pushtop replay`, and a wrong secret is a clear error that does not print the secret.
@Suite(.serialized) struct ConsoleCommandTests {
    /// Starts `pushtop console` on `node` and waits until its feed is live (the hello arrived).
    static func console(_ node: ServeNode, _ extra: [String] = [], secret: String? = nil) async throws
        -> PushtopProcess
    {
        let process = try PushtopProcess(
            [
                "console", "--port", "\(node.port)", "--key", node.key, "--secret", secret ?? node.secret,
                "--app-id", node.appID,
            ] + extra)
        return process
    }

    static func waitForHello(_ process: PushtopProcess) async throws {
        try await waitUntil(timeout: 20, "the console's hello (stderr: \(process.stderr.suffix(400)))") {
            process.stderr.contains(": hello: node ")
        }
    }

    /// A pusher-js-like client: connects (`client=js&version=8.6.0`), subscribes to `chat`, receives one event
    /// published through the HTTP API, and disconnects. Returns its socket id.
    static func scenario(_ node: ServeNode) async throws -> String {
        let (socket, socketID) = try await TestSocket.established(
            "ws://127.0.0.1:\(node.port)/app/\(node.key)?protocol=7&client=js&version=8.6.0")
        try await socket.subscribe("chat")
        _ = try await socket.next("pusher_internal:subscription_succeeded", channel: "chat")
        try await node.trigger("chat", "greeting", data: #"{"text":"hello console"}"#)
        _ = try await socket.next("greeting", channel: "chat")
        await socket.close()
        return socketID
    }

    static func rows(_ process: PushtopProcess) -> [ConsoleRow] {
        process.lines.compactMap(ConsoleRow.init(jsonLine:))
    }

    @Test func printsEveryStepOfAClientAndRecordsItForReplay() async throws {
        let node = try await ServeNode.start()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let console = try await Self.console(node, ["--record", path])
        try await Self.waitForHello(console)
        let socketID = try await Self.scenario(node)

        try await waitUntil(timeout: 20, "a disconnection row for \(socketID) (stdout: \(console.lines.suffix(8)))") {
            Self.rows(console).contains { $0.type == .disconnection && $0.socketID == socketID }
        }
        console.signal(SIGINT)
        #expect(try await console.exitCode() == 0, "Ctrl-C ends the console cleanly")
        await node.stop()

        let rows = Self.rows(console)
        #expect(rows.count == console.lines.count, "every stdout line is a console row: \(console.lines)")
        let mine = rows.filter { $0.socketID == socketID || $0.channel == "chat" }
        let types = mine.map(\.type)
        for type in [ConsoleRowType.connection, .subscribed, .occupied, .apiMessage, .vacated, .disconnection] {
            #expect(types.contains(type), "\(type) in \(types)")
        }
        let connection = try #require(mine.first { $0.type == .connection })
        #expect(connection.clientLibrary == "js")
        #expect(connection.clientVersion == "8.6.0")
        #expect(connection.node != nil)
        let message = try #require(mine.first { $0.type == .apiMessage })
        #expect(message.event == "greeting")
        #expect(message.data == #"{"text":"hello console"}"#)
        // In the order they happened.
        let order = [ConsoleRowType.connection, .subscribed, .apiMessage, .disconnection].compactMap { t in
            types.firstIndex(of: t)
        }
        #expect(order == order.sorted(), "\(types)")
        // Each line carries at least type and time, as scripts rely on.
        for line in console.lines {
            #expect(line.hasPrefix(#"{"type":""#) && line.contains(#""time":""#), "\(line)")
        }
        #expect(!console.lines.joined().contains(node.secret))

        // The recording reads back as the same rows.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let (items, damage) = RecordingCodec.read(text)
        #expect(damage == nil)
        guard case .header(let header)? = items.first else {
            Issue.record("no header in \(text.prefix(200))")
            return
        }
        #expect(header.source == "pushtop console")
        let recorded = items.compactMap { item -> ConsoleRow? in
            if case .console(_, let row) = item { return row }
            return nil
        }
        #expect(recorded == rows)
        #expect(!text.contains(node.secret))
    }

    @Test func typeShowsOnlyTheRowsAsked() async throws {
        let node = try await ServeNode.start()
        let console = try await Self.console(node, ["--type", "api_message", "--type", "disconnection"])
        try await Self.waitForHello(console)
        let socketID = try await Self.scenario(node)
        try await waitUntil(timeout: 20, "a disconnection row (stdout: \(console.lines.suffix(8)))") {
            Self.rows(console).contains { $0.type == .disconnection && $0.socketID == socketID }
        }
        console.signal(SIGTERM)
        #expect(try await console.exitCode() == 0)
        await node.stop()
        let types = Set(Self.rows(console).map(\.type))
        #expect(types == [.apiMessage, .disconnection], "\(console.lines)")
    }

    @Test func aWrongSecretIsAClearErrorThatDoesNotPrintTheSecret() async throws {
        let node = try await ServeNode.start()
        let wrong = "not-the-node-secret-7391"
        let console = try await Self.console(node, secret: wrong)
        let status = try await console.exitCode(timeout: 20)
        await node.stop()
        #expect(status == 1)
        #expect(console.stderr.contains("the secret does not sign requests for app \(node.appID)"), "\(console.stderr)")
        #expect(console.stderr.contains("check --secret"))
        #expect(!console.stderr.contains(wrong))
        #expect(console.lines.isEmpty)
    }

    /// Two `serve --redis` nodes: one node's feed shows the whole cluster, and with both as `--node`s every row is
    /// printed once (each feed passes on its own node's rows), tagged with the node that did it.
    @Test func severalNodesOfAClusterPrintEachRowOnce() async throws {
        try #require(RedisServerProcess.isAvailable, "redis-server is needed (scripts/install-deps)")
        let redis = try await RedisServerProcess.start()
        defer { redis.stop() }
        let a = try await ServeNode.start(extra: ["--redis", redis.url, "--node-id", "node-a"])
        let b = try await ServeNode.start(extra: ["--redis", redis.url, "--node-id", "node-b"])
        func console(_ nodes: [ServeNode]) throws -> PushtopProcess {
            try PushtopProcess(
                ["console", "--key", a.key, "--secret", a.secret, "--app-id", a.appID]
                    + nodes.flatMap { ["--node", $0.address] })
        }
        let both = try console([a, b])
        let onlyA = try console([a])
        try await waitUntil(timeout: 20, "both feeds' hellos (stderr: \(both.stderr.suffix(400)))") {
            both.stderr.contains("hello: node node-a") && both.stderr.contains("hello: node node-b")
                && onlyA.stderr.contains("hello: node node-a")
        }
        #expect(both.stderr.contains("cluster-wide (--redis)"))
        // Node B forwards its rows once a listener anywhere was announced: connect on B until A's feed shows it.
        try await waitUntil(timeout: 20, "node A's feed to show node B's connections") {
            let (socket, socketID) = try await TestSocket.established("ws://\(b.address)/app/\(b.key)?protocol=7")
            let seen =
                (try? await waitUntil(timeout: 1, "the row of \(socketID)") {
                    Self.rows(onlyA).contains { $0.socketID == socketID && $0.node == "node-b" }
                }) != nil
            await socket.close()
            return seen
        }

        let socketID = try await Self.scenario(b)
        for process in [both, onlyA] {
            try await waitUntil(timeout: 20, "the disconnection of \(socketID) (stdout: \(process.lines.suffix(6)))") {
                Self.rows(process).contains { $0.type == .disconnection && $0.socketID == socketID }
            }
        }
        // A row that would come twice comes within moments of the first: give it that time.
        try await Task.sleep(for: .milliseconds(500))
        both.signal(SIGINT)
        onlyA.signal(SIGINT)
        #expect(try await both.exitCode() == 0)
        #expect(try await onlyA.exitCode() == 0)
        await a.stop()
        await b.stop()

        let lines = both.lines
        #expect(Set(lines).count == lines.count, "a row printed twice: \(lines)")
        let mine = Self.rows(both).filter { $0.socketID == socketID }
        #expect(mine.map(\.type).filter { $0 == .connection }.count == 1)
        #expect(mine.allSatisfy { $0.node == "node-b" }, "\(mine)")
        let message = Self.rows(both).filter { $0.type == .apiMessage && $0.event == "greeting" }
        #expect(message.count == 1, "\(message)")
        #expect(message.first?.node == "node-b", "the trigger went to node B's API")
        // Node A's feed alone has node B's rows too.
        #expect(Self.rows(onlyA).contains { $0.type == .connection && $0.socketID == socketID && $0.node == "node-b" })
    }

    @Test func readsTheAppFromTheAppsEnvFile() async throws {
        let node = try await ServeNode.start()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID()).env").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let variables = [
            ("APP_ID", node.appID), ("APP_KEY", node.key), ("APP_SECRET", node.secret), ("HOST", "127.0.0.1"),
            ("PORT", "\(node.port)"), ("SCHEME", "http"),
        ]
        try variables.map { "PUSHER_\($0.0)=\($0.1)" }.joined(separator: "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let console = try PushtopProcess(["console", "--env-file", path])
        try await Self.waitForHello(console)
        let (socket, socketID) = try await TestSocket.established("ws://\(node.address)/app/\(node.key)?protocol=7")
        try await console.waitForLine("the connection of \(socketID)") {
            $0["type"] as? String == "connection" && $0["socket_id"] as? String == socketID
        }
        await socket.close()
        console.signal(SIGINT)
        #expect(try await console.exitCode() == 0)
        await node.stop()
        #expect(console.stderr.contains(path), "says which file named the app: \(console.stderr)")
        #expect(!console.stderr.contains(node.secret))
    }

    @Test func anUnknownTypeIsAUsageErrorNamingTheTypes() async throws {
        try await PushtopProcess.expectUsageError(
            ["console", "--type", "connection,subscribe"],
            mentioning: "unknown type 'subscribe'; the types are: connection, disconnection, subscribed")
        try await PushtopProcess.expectUsageError(
            ["console", "--node", "localhost"], mentioning: "--node: expected HOST:PORT")
    }
}
