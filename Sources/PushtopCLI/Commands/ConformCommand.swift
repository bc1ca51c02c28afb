import ArgumentParser
import Foundation
import PushtopConfig
import PushtopConformance

/// `pushtop conform`: runs the conformance catalogue against any Pusher-protocol server.
struct ConformCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conform",
        abstract: "Check a Pusher-compatible server against Pusher's documented protocol and behaviour.",
        discussion: """
            Runs named cases (MUST: the protocol page; SHOULD: Pusher's documented behaviour; OPTIONAL: features \
            reported unsupported when a server has none of them) on channels with a random prefix, and prints a \
            report: text, --format json (a stable schema), --format junit or --format markdown (for an issue or a \
            pull request). Cases that wait on the server's own clocks (its idle ping after activity_timeout, its \
            close after an unanswered ping, webhook retries) run only with --long, with the server's real timings. \
            Exits 0 when no case fails, 1 when \
            one does, 2 on bad usage or when the server cannot be tested at all (unreachable, wrong key or secret, \
            no webhook arrives).

            Examples:
              pushtop conform --host 127.0.0.1 --port 6001 --app-id 1 --key KEY --secret SECRET
              pushtop conform --env-file .env --webhook-listen 0.0.0.0:9911 --format junit > conform.xml
              pushtop conform --node 10.0.0.1:6001 --node 10.0.0.2:6001 --key KEY --secret SECRET
              pushtop conform --list
              pushtop conform --diff soketi.json reverb.json
              pushtop conform --client --upstream ws://127.0.0.1:6001 --key KEY   (then point the app's client at 127.0.0.1:6002)

            With --client it judges an app's Pusher client instead: it listens on --listen as a proxy to the app's \
            server (--upstream), announces a short activity_timeout, and runs the client cases (pings, \
            reconnection after 4200, 4100, 4009, a drop, a stall and an outage, refused subscriptions, client \
            events) on the connections that arrive, one at a time. A case the client never gives a chance to \
            judge is "not observed". Exits as for a server.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, junit, markdown
    }

    @OptionGroup var api: APIOptions

    @OptionGroup var envFile: EnvFileOption

    @Option(
        name: .customLong("node"),
        help: ArgumentHelp(
            "A node of the same app (repeatable): two or more add the cross-node cases; the first is where single-node cases run.",
            valueName: "HOST:PORT"))
    var nodes: [String] = []

    @Option(
        name: .customLong("webhook-listen"),
        help: ArgumentHelp(
            "Receive the server's webhooks here and check them (configure the server to post to http://HOST:PORT/).",
            valueName: "HOST:PORT"))
    var webhookListen: String?

    @Flag(help: "Also run the cases that open many connections or send many messages (the 100-member limit).")
    var destructive = false

    @Flag(
        help:
            "Also run the cases that wait on the server's own clocks (idle ping, close after an unanswered ping, webhook retries): minutes against a server with Pusher's 120 s activity_timeout."
    )
    var long = false

    @Option(
        help: ArgumentHelp(
            "Report format: text, json, junit, markdown (with --list: the catalogue).", valueName: "FORMAT"))
    var format: Format = .text

    @Option(
        name: .customLong("output"),
        help: ArgumentHelp("Also write the JSON report to this file (for --diff later).", valueName: "FILE"))
    var output: String?

    @Option(
        name: .customLong("case"),
        help: ArgumentHelp("Run only these cases: an id, or a group such as presence (repeatable).", valueName: "ID"))
    var only: [String] = []

    @Flag(help: "List the cases (id, level, what it checks) and exit.")
    var list = false

    @Option(
        name: .customLong("diff"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "Compare two JSON reports: what changes for an app that moves from server A to server B.",
            valueName: "A.json B.json"))
    var diff: [String] = []

    @Option(help: ArgumentHelp("Cases run at once.", valueName: "N"))
    var parallel: Int = 8

    @Option(
        help: ArgumentHelp(
            "Seconds to wait for what should come at once (a slow link or a hosted server: more).", valueName: "SECONDS"
        ))
    var patience: Double = 3

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "Also trust the certificate authorities in this PEM file (wss://, https://).", valueName: "PEM"))
    var caFile: String?

    @Flag(name: .shortAndLong, help: "Text format: a line for every case, not only the failures.")
    var verbose = false

    @OptionGroup(title: "Judging an app's client (--client)") var client: ClientJudgeOptions

    /// Whether this process runs `conform` (bad usage then exits 2, as CI scripts expect).
    static func isInvocation(_ arguments: [String] = CommandLine.arguments) -> Bool {
        arguments.dropFirst().first == "conform"
    }

    func validate() throws {
        if client.enabled { return try validateClient() }
        if !diff.isEmpty, diff.count != 2 {
            throw ValidationError("--diff takes two JSON reports: --diff A.json B.json")
        }
        for node in nodes where NodeAddress(node) == nil {
            throw ValidationError("--node: \(NodeAddress.problem(node))")
        }
        if let webhookListen, NodeAddress(webhookListen) == nil {
            throw ValidationError("--webhook-listen: \(NodeAddress.problem(webhookListen))")
        }
        guard (1...64).contains(parallel) else { throw ValidationError("--parallel must be 1 to 64") }
        guard patience > 0, patience <= 60 else {
            throw ValidationError("--patience must be more than 0 and at most 60 seconds")
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ValidationError("--ca-file '\(caFile)' is not a readable file")
        }
        let known = Set(ConformanceSuite.cases.map(\.id) + ConformanceSuite.groups)
        for id in only where !known.contains(id) && !ConformanceSuite.cases.contains(where: { $0.id.hasPrefix(id) }) {
            throw ValidationError("--case \(id): no such case or group (pushtop conform --list)")
        }
    }

    func run() async throws {
        if client.enabled { return try await runClient() }
        if list { return printList() }
        if diff.count == 2 { return try runDiff() }
        let api = try self.api.overlaid(by: envFile, command: "conform", purpose: "conform signs its API requests")
        var target = ConformanceTarget(
            nodes: targetNodes(api), appID: api.appID, key: api.key, secret: api.secret, caFile: caFile,
            destructive: destructive, patience: patience)
        target.long = long
        var listener: WebhookListener?
        if let webhookListen, let address = NodeAddress(webhookListen) {
            do {
                listener = try await WebhookListener.start(host: address.host, port: address.port)
            } catch {
                fail(2, "cannot listen for webhooks on \(webhookListen): \(error)")
            }
        }
        let runner = ConformanceRunner(target: target, webhooks: listener, only: only, parallel: parallel)
        let plan = runner.plan()
        let skipped = plan.filter { $0.skip != nil }.count
        StandardStreams.writeErr(
            "pushtop conform: \(plan.count) cases against \(target.nodes.map(\.name).joined(separator: ", "))"
                + (skipped > 0 ? " (\(skipped) skipped)" : "")
                + "; at most \(runner.plannedMessages) messages, on channels "
                + "named *\(runner.runPrefix)*\n")
        if let listener {
            StandardStreams.writeErr(
                "pushtop conform: receiving webhooks at http://\(listener.address)/ "
                    + "(the server must post there)\n")
        }
        do {
            try await runner.preflight()
        } catch {
            await listener?.stop()
            fail(2, error.description)
        }
        if let note = runner.longRunNote { StandardStreams.writeErr("pushtop conform: \(note)\n") }
        let report = await runner.run()
        await listener?.stop()
        try finish(report)
    }

    /// Writes the report (`--output`, then standard output in `--format`); exits 1 when a case failed.
    func finish(_ report: ConformanceReport) throws {
        if let output {
            do {
                try Self.json(report).write(to: URL(fileURLWithPath: output), atomically: true, encoding: .utf8)
            } catch {
                fail(2, "cannot write \(output): \(error)")
            }
        }
        switch format {
        case .text: StandardStreams.writeOut(ReportText.render(report, verbose: verbose))
        case .json: StandardStreams.writeOut(Self.json(report))
        case .junit: StandardStreams.writeOut(ReportJUnit.render(report))
        case .markdown: StandardStreams.writeOut(ReportMarkdown.render(report))
        }
        if !report.passed { throw ExitCode.failure }
    }

    private func targetNodes(_ api: APIOptions) -> [ConformanceTarget.Node] {
        if let cluster = api.cluster, nodes.isEmpty {
            return [.pusher(cluster: cluster, appID: api.appID, key: api.key, secret: api.secret)]
        }
        let addresses =
            nodes.isEmpty ? [NodeAddress(host: api.host, port: api.port)] : nodes.compactMap(NodeAddress.init)
        return addresses.map {
            .single(host: $0.host, port: $0.port, useTLS: api.tls, appID: api.appID, key: api.key, secret: api.secret)
        }
    }

    private func printList() {
        switch format {
        case .json:
            let cases = ConformanceSuite.cases.map { c in
                [
                    "id": c.id, "group": c.group, "level": c.level.rawValue, "title": c.title,
                    "source": "\(c.source.page), \(c.source.section)", "url": c.source.url,
                    "needs": c.needs.map(\.rawValue).sorted().joined(separator: ","),
                    "messages": "\(c.messages)",
                ]
            }
            let data =
                (try? JSONSerialization.data(withJSONObject: cases, options: [.prettyPrinted, .sortedKeys])) ?? Data()
            StandardStreams.writeOut(String(decoding: data, as: UTF8.self) + "\n")
        case .markdown: StandardStreams.writeOut(CatalogueMarkdown.render())
        default: StandardStreams.writeOut(CatalogueMarkdown.lines())
        }
    }

    private func runDiff() throws {
        func load(_ path: String) -> ConformanceReport {
            guard let data = FileManager.default.contents(atPath: path) else { fail(2, "cannot read \(path)") }
            do {
                return try JSONDecoder().decode(ConformanceReport.self, from: data)
            } catch {
                fail(2, "\(path) is not a report of pushtop conform --format json: \(error)")
            }
        }
        StandardStreams.writeOut(ReportDiff(from: load(diff[0]), to: load(diff[1])).render())
    }

    static func json(_ report: ConformanceReport) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? "{}") + "\n"
    }

    private func fail(_ code: Int32, _ message: String) -> Never {
        StandardStreams.writeErr("pushtop conform: \(message)\n")
        Foundation.exit(code)
    }
}
