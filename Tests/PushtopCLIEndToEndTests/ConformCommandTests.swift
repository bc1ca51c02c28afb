import Foundation
import PushtopConformance
import PushtopTestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `pushtop conform`, the real binary against a real `pushtop serve`: serve passes every case; each documented
/// deviation, reproduced by the deviation table's proxy (``FaultProxy`` rewriting as a row of ``DeviationSetups``
/// says), fails exactly its cases; bad usage and a server that cannot be tested are said once with exit 2.
@Suite(.serialized) struct ConformCommandTests {
    /// What a `--format json` run printed.
    struct Run {
        var code: Int32
        var report: [String: Any]
        var stderr: String
        /// What stdout held (for a report that did not parse).
        var text: String = ""

        var cases: [[String: Any]] { report["cases"] as? [[String: Any]] ?? [] }
        var summary: [String: Any] { report["summary"] as? [String: Any] ?? [:] }
        func ids(_ result: String) -> Set<String> {
            Set(cases.filter { $0["result"] as? String == result }.compactMap { $0["id"] as? String })
        }
        func message(_ id: String) -> String { cases.first { $0["id"] as? String == id }?["message"] as? String ?? "" }
        var failures: String {
            cases.filter { $0["result"] as? String == "fail" }
                .map { "\($0["id"] ?? "?"): \($0["message"] ?? "")" }.joined(separator: "\n")
        }
    }

    /// Runs `pushtop ARGUMENTS` with stdout in a file (a report of 100 KB is read whole, however busy the test
    /// process's threads are) and stderr in another; returns the exit status and both texts.
    static func run(_ arguments: [String], timeout: Double = 120) async throws -> (
        code: Int32, out: String, err: String
    ) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("conform-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("out"), errURL = folder.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = PushtopProcess.binary
        process.arguments = arguments
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try await waitUntil(timeout: timeout, "pushtop \(arguments.prefix(3).joined(separator: " ")) to exit") {
            !process.isRunning
        }
        try? out.close()
        try? err.close()
        return (
            process.terminationStatus, try String(contentsOf: outURL, encoding: .utf8),
            try String(contentsOf: errURL, encoding: .utf8)
        )
    }

    static func conform(_ arguments: [String], timeout: Double = 120) async throws -> Run {
        let (code, text, stderr) = try await run(["conform", "--format", "json"] + arguments, timeout: timeout)
        let report = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        return Run(code: code, report: report, stderr: stderr, text: text)
    }

    /// A `serve` node of the table's app (``Rewrites``) and, in front of it, a rewriting ``FaultProxy`` that deviates
    /// from the protocol as the deviation table's row `name` says (a row made by the proxy's rewrite alone); with
    /// `hooks`, serve posts its webhooks to conform's listener there (through the proxy, for a row that rewrites them).
    /// The caller stops both.
    static func nodeBehindProxy(_ name: String, hooks: Int? = nil) async throws -> (ServeNode, FaultProxy) {
        let setup = try #require(DeviationSetups.all[name], "no row \(name) in the deviation table")
        let listener = hooks.map { "http://127.0.0.1:\($0)/" }
        let proxy = try await FaultProxy.start(
            upstreamPort: 0,
            rewriting: .init(setup.rewrite, key: Rewrites.key, secret: Rewrites.secret, webhookTarget: listener))
        do {
            let webhook = setup.webhooks ? proxy.webhookURL : listener
            let node = try await ServeNode.start(
                key: Rewrites.key, secret: Rewrites.secret, appID: Rewrites.appID,
                extra: webhook.map { ["--webhook", $0] } ?? [])
            proxy.setUpstream(node.port)
            return (node, proxy)
        } catch {
            proxy.stop()
            throw error
        }
    }

    static func app(_ node: ServeNode) -> [String] {
        ["--port", "\(node.port)", "--key", node.key, "--secret", node.secret, "--app-id", node.appID]
    }

    /// The proxy's address and the table's app.
    static func app(_ proxy: FaultProxy) -> [String] {
        ["--port", "\(proxy.port)", "--key", Rewrites.key, "--secret", Rewrites.secret, "--app-id", Rewrites.appID]
    }

    @Test func servePassesEveryCaseOnOneNode() async throws {
        let hooks = try freeLocalPort()
        let node = try await ServeNode.start(extra: [
            "--activity-timeout", "2", "--webhook", "http://127.0.0.1:\(hooks)/",
        ])
        defer { Task { await node.stop() } }
        let run = try await Self.conform(
            Self.app(node) + ["--webhook-listen", "127.0.0.1:\(hooks)", "--destructive", "--long"])
        #expect(run.code == 0, "\(run.failures)\n\(run.stderr)")
        #expect(run.ids("fail").isEmpty, "\(run.failures)")
        #expect(run.ids("unsupported").isEmpty, "\(run.ids("unsupported"))")
        // Only the cross-node cases need a second node.
        #expect(
            run.ids("skipped") == Set(run.cases.compactMap { $0["id"] as? String }.filter { $0.hasPrefix("cluster.") }))
        #expect(run.cases.count > 150)
        #expect(run.ids("pass").count > 130)
        #expect(run.summary["fail"] as? Int == 0)
        // The cases run side by side (those that wait on the server's clocks first), so the run is shorter than
        // its cases one after the other, however loaded the machine: how long it takes is the benchmarks' business.
        let runSeconds = (run.report["seconds"] as? NSNumber)?.doubleValue ?? 0
        let caseSeconds = run.cases.compactMap { ($0["seconds"] as? NSNumber)?.doubleValue }.reduce(0, +)
        #expect(
            runSeconds > 0 && runSeconds < caseSeconds,
            "the run took \(runSeconds) s, its cases \(caseSeconds) s one after the other")
        #expect(run.stderr.contains("at most"), "it says how many messages it sends first: \(run.stderr)")
        // ... and keeps to it: each case within what the catalogue says it costs, the run within the sum.
        let list = try await Self.run(["conform", "--list", "--format", "json"])
        let listed = try JSONSerialization.jsonObject(with: Data(list.out.utf8)) as? [[String: String]] ?? []
        var declared: [String: Int] = [:]
        for c in listed {
            if let id = c["id"], let most = c["messages"].flatMap(Int.init) { declared[id] = most }
        }
        #expect(declared.count == listed.count && !listed.isEmpty, "every listed case says what it costs at most")
        let over = run.cases.compactMap { c -> String? in
            guard let id = c["id"] as? String, let used = c["messages"] as? Int, let most = declared[id], used > most
            else { return nil }
            return "\(id): \(used) > \(most)"
        }
        #expect(over.isEmpty, "cases over their declared messages: \(over)")
        // Counted before the case closes its connections: the 100 members' joins (4,950 `member_added` and about
        // 200 more), not the `member_removed` that reach the others as they leave, however fast those come.
        let members = run.cases.first { $0["id"] as? String == "presence.member-limit-100" }?["messages"] as? Int
        #expect(members.map { (5_100...5_300).contains($0) } == true, "presence.member-limit-100: \(members ?? -1)")
        let atMost = run.stderr.firstMatch(of: /at most (\d+) messages/).flatMap { Int($0.1) } ?? 0
        #expect((run.report["messages"] as? Int ?? .max) <= atMost, "\(run.report["messages"] ?? "-") > \(atMost)")
        #expect(
            run.stderr.contains(
                "cases wait on the server's own clocks (activity_timeout 2 s): this run takes up to about"),
            "\(run.stderr)")
        #expect(run.ids("pass").contains("connection.server-pings-idle-client"))
    }

    @Test func aTwoNodeRedisClusterPassesEveryCase() async throws {
        let redis = try await RedisServerProcess.start()
        defer { redis.stop() }
        let hooks = try freeLocalPort()
        let common = ["--activity-timeout", "2", "--redis", redis.url, "--webhook", "http://127.0.0.1:\(hooks)/"]
        let a = try await ServeNode.start(extra: common + ["--node-id", "a"])
        let b = try await ServeNode.start(extra: common + ["--node-id", "b"])
        defer {
            Task {
                await a.stop(); await b.stop()
            }
        }
        let run = try await Self.conform([
            "--node", a.address, "--node", b.address, "--key", ServeNode.key, "--secret", ServeNode.secret,
            "--app-id", ServeNode.appID, "--webhook-listen", "127.0.0.1:\(hooks)", "--long",
        ])
        #expect(run.code == 0, "\(run.failures)\n\(run.stderr)")
        #expect(!run.cases.isEmpty, "a JSON report on stdout: \(run.text.count) bytes, ending \(run.text.suffix(200))")
        #expect(run.ids("fail").isEmpty, "\(run.failures)")
        #expect(run.ids("unsupported").isEmpty)
        let cluster = run.cases.filter { ($0["id"] as? String)?.hasPrefix("cluster.") == true }
        #expect(cluster.count >= 10)
        #expect(cluster.allSatisfy { $0["result"] as? String == "pass" }, "\(cluster)")
        #expect(
            run.ids("skipped") == Set(["presence.member-limit-100", "api.event-reaches-300-subscribers"]),
            "only the destructive cases are skipped")
    }

    /// Deviations of real servers, rows of the deviation table (``CaseDeviations``, ``DeviationSetups``) that the
    /// proxy's rewrite makes alone, and what the message of the first case each fails names.
    static let deviations: [(name: String, names: String)] = [
        ("member-events-per-connection", "one per connection"),
        ("drop-api-events", "within"),
        ("any-path-accepted", "pusher:connection_established"),
        ("channel-data-unbound", "not bound"),
        ("client-events-echoed", "received its own client event"),
        ("stale-timestamps-accepted", "HTTP 200"),
        ("socket-id-ignored", "received"),
        ("batch-reversed", "got 9 8 7 6 5 4 3 2 1 0"),
        ("keeps-disconnected-subscribers", "occupied: false"),
    ]

    /// The binary fails exactly the cases the row says, and no other case of the row's run.
    @Test(arguments: deviations.map(\.name))
    func eachDeviationFailsExactlyItsCase(_ name: String) async throws {
        let deviation = try #require(CaseDeviations.all.first { $0.name == name })
        let setup = try #require(DeviationSetups.all[name])
        let names = try #require(Self.deviations.first { $0.name == name }?.names)
        let hooks = setup.webhooks ? try freeLocalPort() : nil
        let (node, proxy) = try await Self.nodeBehindProxy(name, hooks: hooks)
        defer {
            proxy.stop()
            Task { await node.stop() }
        }
        let run = try await Self.conform(
            Self.app(proxy) + (hooks.map { ["--webhook-listen", "127.0.0.1:\($0)"] } ?? [])
                + (setup.destructive ? ["--destructive"] : []) + deviation.selection.flatMap { ["--case", $0] })
        #expect(run.code == 1, "\(name): \(run.stderr)")
        #expect(run.ids("fail") == Set(deviation.fails), "\(name):\n\(run.failures)")
        let first = try #require(deviation.fails.sorted().first)
        #expect(run.message(first).contains(names), "\(name): \(run.message(first))")
    }

    @Test func unwrappedWebhooksFailOnlyTheFormatCase() async throws {
        let hooks = try freeLocalPort()
        // serve → proxy (unwraps each batch) → conform's listener.
        let (node, proxy) = try await Self.nodeBehindProxy("webhooks-unwrapped", hooks: hooks)
        defer {
            proxy.stop()
            Task { await node.stop() }
        }
        let run = try await Self.conform(
            Self.app(proxy) + ["--webhook-listen", "127.0.0.1:\(hooks)", "--case", "webhooks"])
        #expect(run.code == 1, "\(run.stderr)")
        #expect(run.ids("fail") == ["webhooks.wrapped-in-events"], "\(run.failures)")
        #expect(run.message("webhooks.wrapped-in-events").contains("events array"))
    }

    @Test func aServerThatKeepsDisconnectedSubscribersFailsTheVacatedByDisconnectWebhooks() async throws {
        let hooks = try freeLocalPort()
        let (node, proxy) = try await Self.nodeBehindProxy("keeps-disconnected-subscribers", hooks: hooks)
        defer {
            proxy.stop()
            Task { await node.stop() }
        }
        let run = try await Self.conform(
            Self.app(proxy) + [
                "--webhook-listen", "127.0.0.1:\(hooks)",
                "--case", "webhooks.vacated-on-close", "--case", "webhooks.vacated-on-drop",
                "--case", "webhooks.member-removed-on-close", "--case", "webhooks.member-removed-on-drop",
                "--case", "webhooks.channel-vacated", "--case", "webhooks.member-removed",
            ])
        #expect(run.code == 1, "\(run.stderr)")
        #expect(
            run.ids("fail") == [
                "webhooks.vacated-on-close", "webhooks.vacated-on-drop", "webhooks.member-removed-on-close",
                "webhooks.member-removed-on-drop",
            ], "\(run.failures)")
        #expect(
            run.ids("pass").isSuperset(of: ["webhooks.channel-vacated", "webhooks.member-removed"]),
            "the unsubscribe cases")
        #expect(run.message("webhooks.vacated-on-drop").contains("channel_vacated"))
    }

    @Test func anEventToOnlyTheFirst100SubscribersFailsTheReachCase() async throws {
        let (node, proxy) = try await Self.nodeBehindProxy("reach-first-100")
        defer {
            proxy.stop()
            Task { await node.stop() }
        }
        let run = try await Self.conform(
            Self.app(proxy) + [
                "--destructive", "--case", "api.event-reaches-300-subscribers", "--case", "api.batch-order-kept",
            ])
        #expect(run.code == 1, "\(run.stderr)")
        #expect(run.ids("fail") == ["api.event-reaches-300-subscribers"], "\(run.failures)")
        #expect(run.message("api.event-reaches-300-subscribers").contains("got 100 of 300 received it"))
    }

    @Test func theMarkdownReportIsForAnIssue() async throws {
        let (node, proxy) = try await Self.nodeBehindProxy("client-events-echoed")
        defer {
            proxy.stop()
            Task { await node.stop() }
        }
        let (code, out, _) = try await Self.run(
            ["conform", "--format", "markdown"] + Self.app(proxy) + ["--case", "client-events"])
        #expect(code == 1)
        #expect(out.hasPrefix("## pushtop conform: 127.0.0.1:\(proxy.port)"), "\(out.prefix(200))")
        #expect(out.contains("#### `client-events.not-echoed` (MUST)"), "\(out)")
        #expect(out.contains("- **Expected:** "))
        #expect(out.contains("- **Pusher's documentation:** [Pusher Channels Protocol: Channel client events]("))
        #expect(out.contains("<details><summary>Frames (&gt;&gt; sent, &lt;&lt; received)</summary>"))
    }

    @Test func noGraceFailsTheQuickReturnCases() async throws {
        let hooks = try freeLocalPort()
        let node = try await ServeNode.start(extra: ["--webhook", "http://127.0.0.1:\(hooks)/", "--webhook-grace", "0"])
        defer { Task { await node.stop() } }
        let run = try await Self.conform(
            Self.app(node) + ["--webhook-listen", "127.0.0.1:\(hooks)", "--case", "webhooks"])
        #expect(run.code == 1)
        #expect(
            run.ids("fail") == [
                "webhooks.vacated-cancelled-on-quick-return",
                "webhooks.member-removed-cancelled-on-quick-return",
            ], "\(run.failures)")
        #expect(run.message("webhooks.vacated-cancelled-on-quick-return").contains("no grace"))
    }

    @Test func aServerThatCannotBeTestedIsSaidOnceWithExit2() async throws {
        let unused = try freeLocalPort()
        let nothing = try await Self.conform(["--port", "\(unused)"], timeout: 30)
        #expect(nothing.code == 2)
        #expect(nothing.stderr.contains("cannot reach 127.0.0.1:\(unused)"), "\(nothing.stderr)")
        #expect(nothing.report.isEmpty, "no report, no hundred failures")

        let node = try await ServeNode.start()
        defer { Task { await node.stop() } }
        let wrongSecret = try await Self.conform([
            "--port", "\(node.port)", "--key", ServeNode.key, "--secret", "nope",
            "--app-id", ServeNode.appID,
        ])
        #expect(wrongSecret.code == 2)
        #expect(wrongSecret.stderr.contains("check --app-id and --secret"), "\(wrongSecret.stderr)")
        #expect(!wrongSecret.stderr.contains("nope"), "the secret is never printed")

        let wrongKey = try await Self.conform([
            "--port", "\(node.port)", "--key", "nope", "--secret", ServeNode.secret,
            "--app-id", ServeNode.appID,
        ])
        #expect(wrongKey.code == 2)
        #expect(wrongKey.stderr.contains("does not accept the app key 'nope'"), "\(wrongKey.stderr)")

        let hooks = try freeLocalPort()
        let silent = try await Self.conform(Self.app(node) + ["--webhook-listen", "127.0.0.1:\(hooks)"], timeout: 30)
        #expect(silent.code == 2)
        #expect(silent.stderr.contains("no webhook reached http://127.0.0.1:\(hooks)/"), "\(silent.stderr)")
    }

    @Test func badUsageExits2() async throws {
        for arguments in [
            ["--node", "no-port"], ["--diff", "only-one.json"], ["--case", "no-such-group"],
            ["--parallel", "0"], ["--format", "html"],
        ] {
            let process = try PushtopProcess(["conform"] + arguments)
            #expect(try await process.exitCode() == 2, "\(arguments): \(process.stderr)")
            #expect(!process.stderr.isEmpty)
        }
    }

    @Test func theListAndTheDocsPageComeFromTheCatalogue() async throws {
        let list = try await Self.run(["conform", "--list", "--format", "json"])
        #expect(list.code == 0)
        let cases = try #require(try JSONSerialization.jsonObject(with: Data(list.out.utf8)) as? [[String: String]])
        #expect(cases.count > 150)
        #expect(Set(cases.map { $0["id"]! }).count == cases.count, "ids are unique")
        for level in ["must", "should", "optional"] { #expect(cases.contains { $0["level"] == level }) }
        #expect(cases.allSatisfy { $0["url"]?.hasPrefix("https://") == true && !($0["source"] ?? "").isEmpty })

        let markdown = try await Self.run(["conform", "--list", "--format", "markdown"])
        #expect(markdown.code == 0)
        let generated = markdown.out
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/conform-cases.md")
        let committed = try String(contentsOf: page, encoding: .utf8)
        #expect(
            committed == generated,
            "docs/conform-cases.md is stale: run pushtop conform --list --format markdown > docs/conform-cases.md")
    }

    @Test func theDiffSaysWhatChangesForAnApp() async throws {
        let (node, proxy) = try await Self.nodeBehindProxy("client-events-echoed")
        defer {
            proxy.stop()
            Task { await node.stop() }
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conform-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("serve.json").path, b = dir.appendingPathComponent("echo.json").path
        let first = try await Self.conform(Self.app(node) + ["--case", "client-events", "--output", a])
        #expect(first.code == 0)
        let second = try await Self.conform(Self.app(proxy) + ["--case", "client-events", "--output", b])
        #expect(second.code == 1)
        let diff = try PushtopProcess(["conform", "--diff", a, b])
        #expect(try await diff.exitCode() == 0)
        let text = diff.lines.joined(separator: "\n")
        #expect(text.contains("What your app may notice (1)"), "\(text)")
        #expect(text.contains("client-events.not-echoed"))
        #expect(text.contains("A client event is not sent back to the connection that sent it."))
    }

    @Test func junitReportsFailuresForCI() async throws {
        let (node, proxy) = try await Self.nodeBehindProxy("client-events-echoed")
        defer {
            proxy.stop()
            Task { await node.stop() }
        }
        let process = try PushtopProcess(
            ["conform", "--format", "junit"] + Self.app(proxy) + ["--case", "client-events"])
        #expect(try await process.exitCode(timeout: 60) == 1)
        let xml = process.lines.joined(separator: "\n")
        #expect(xml.hasPrefix("<?xml"))
        #expect(xml.contains(#"<testsuite name="client-events""#))
        #expect(xml.contains(#"failures="1""#))
        #expect(xml.contains(#"<testcase classname="conform.client-events" name="client-events.not-echoed""#))
        #expect(xml.contains("<failure type=\"must\""))
        let document = try XMLDocument(xmlString: xml)
        #expect(try document.nodes(forXPath: "//failure").count == 1)
    }
}
