import ArgumentParser
import Foundation
import Logging
import PusherProtocol
import PushtopConfig
import PushtopDashboard

/// `pushtop console`: the app's debug console as JSON lines, from each `pushtop serve` node's debug feed and, with
/// `--webhook-listen`, from the webhooks any Pusher-compatible server sends.
struct ConsoleCommand: AsyncParsableCommand, NodeOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Print the app's debug console (connections, subscriptions, API calls, webhooks) as JSON lines.",
        discussion: """
            Reads the signed debug feed of a pushtop serve (GET /apps/ID/console) on --host/--port or on each \
            --node, and with --webhook-listen also receives the webhooks of any Pusher-compatible server (Pusher, \
            soketi, sockudo). One JSON object per line on stdout (type, time, time_ms, node, socket_id, channel, \
            event…); each source's state on stderr. Ctrl-C ends it (exit 0).

            Types: \(ConsoleRowType.allCases.map(\.rawValue).joined(separator: ", ")).

            Examples:
              pushtop console
              pushtop console --env-file .env --type api_message,webhook_failed
              pushtop console --node a:6001 --node b:6001 --record console.jsonl
              pushtop console --env-file .env --webhook-listen 127.0.0.1:9000
            """
    )

    @OptionGroup var api: APIOptions

    @OptionGroup var envFile: EnvFileOption

    @OptionGroup var nodes: NodeOption<ConsoleCommand>
    static let nodeHelp =
        "A pushtop serve node to read (repeatable; instead of --host/--port). Several nodes of one --redis cluster: each row is printed once."

    @Option(
        name: .customLong("webhook-listen"),
        help: ArgumentHelp(
            "Also receive the app's webhooks here (Pusher, soketi, sockudo, pushtop serve): rows with \"source\":\"webhook\". Port 0: any free port (printed on stderr).",
            valueName: "HOST:PORT"))
    var webhookListen: String?

    @Option(
        name: .customLong("type"),
        help: ArgumentHelp(
            "Print only rows of this type (repeatable, or comma-separated): connection, api_message, webhook_failed…",
            valueName: "TYPE"))
    var types: [String] = []

    @Option(
        name: .customLong("record"),
        help: ArgumentHelp(
            "Also write the printed rows to this recording (JSON lines; 'pushtop replay FILE' plays them back).",
            valueName: "FILE"))
    var record: String?

    @Option(
        name: .customLong("log-file"),
        help: ArgumentHelp("Write logs to this file (stderr only shows the sources' states).", valueName: "PATH"))
    var logFile: String?

    mutating func validate() throws {
        try nodes.requireDistinct()
        if let webhookListen, NodeAddress.listening(webhookListen) == nil {
            throw ValidationError("--webhook-listen: \(NodeAddress.problem(webhookListen)) (port 0: any free port)")
        }
        do {
            _ = try ConsoleTypeFilter(parsing: types)
        } catch {
            throw ValidationError("--type: \(error)")
        }
    }

    func run() async throws {
        let api = try self.api.overlaid(
            by: envFile, command: "console", purpose: "console signs its request for the debug feed with the secret")
        if let logFile { PushtopLogging.bootstrap(.file(logFile)) } else { PushtopLogging.bootstrap(.none) }
        let filter = try ConsoleTypeFilter(parsing: types)
        let sources = Self.sources(
            api: api, nodes: nodes.addresses, filter: filter,
            webhookListen: webhookListen.flatMap(NodeAddress.listening))
        var recorder: RecordingWriter?
        if let record {
            do {
                recorder = try RecordingWriter(
                    path: record,
                    header: RecordingHeader(
                        started: Date().timeIntervalSince1970,
                        endpoint: sources.feeds.map(\.description).joined(separator: " ")
                            + (api.tls ? " TLS" : " no TLS"),
                        channels: [], source: "pushtop console"),
                    scrub: [api.secret])
            } catch {
                throw ValidationError(error.description)
            }
        }
        let printer = ConsolePrinter(filter: filter, recorder: recorder)
        let exit = ExitRequests()
        let sourcesTask = Task {
            let ended = await sources.run(into: printer, logger: Logger(label: "pushtop.console"))
            guard !Task.isCancelled else { return }
            // Every source gave up (a wrong secret, no feed and no webhooks): nothing more can come.
            let why = ended.map(ConsolePrinter.describe).joined(separator: "; ")
            StandardStreams.writeErr("pushtop console: no source left (\(why))\n")
            exit.continuation.yield(1)
        }
        let status = await exit.status()
        sourcesTask.cancel()
        await sourcesTask.value
        printer.finish()
        if status != 0 { throw ExitCode(status) }
    }

    /// The sources of `api`'s app: the feed of each node (of `--host`/`--port` without `--node`), the webhook
    /// receiver with `--webhook-listen`. Pusher itself (`--cluster`) has no feed: only webhooks show its traffic.
    static func sources(api: APIOptions, nodes: [NodeAddress], filter: ConsoleTypeFilter, webhookListen: NodeAddress?)
        -> ConsoleSources
    {
        var sources = ConsoleSources()
        let addresses = nodes.isEmpty && api.cluster == nil ? [NodeAddress(host: api.host, port: api.port)] : nodes
        sources.feeds = addresses.map {
            ConsoleFeedEndpoint(
                host: $0.host, port: $0.port, tls: api.tls, appID: api.appID, key: api.key, secret: api.secret,
                types: filter.ordered)
        }
        if let cluster = api.cluster, nodes.isEmpty {
            sources.absent.append(
                ConsoleSourceStatus(
                    name: "Pusher (\(cluster))", kind: .serverFeed,
                    state: .unavailable(
                        "Pusher has no debug feed for pushtop (its Debug Console is on its web dashboard); "
                            + "receive its webhooks: pushtop console --webhook-listen HOST:PORT")))
        }
        if let webhookListen {
            sources.webhooks = WebhookReceiverSettings(
                host: webhookListen.host, port: webhookListen.port,
                credentials: [WebhookCredential(appID: api.appID, key: api.key, secret: api.secret)])
        }
        return sources
    }
}
