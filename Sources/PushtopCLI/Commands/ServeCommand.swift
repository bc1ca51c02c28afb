import ArgumentParser
import Foundation
import Logging
import PushtopServer

/// `pushtop serve`: the embedded Pusher-protocol server, for demos, teammates and tests.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a local Pusher-protocol server (WebSocket + HTTP API on one port).",
        discussion: """
            Serves one app on ws://HOST:PORT/app/KEY and its HTTP API on http://HOST:PORT/apps/ID/... \
            (wss:// and https:// with --tls-cert and --tls-key).

            POST /pusher/auth signs any private or presence subscription and POST /pusher/user-auth signs any \
            user in (development only: they authorize everybody; turn both off with --no-auth-endpoint).

            --webhook URL posts Pusher's signed webhook batches (channel_occupied, channel_vacated, member_added, \
            member_removed, client_event, cache_miss) to URL, retrying failures with back-off. channel_vacated and \
            member_removed wait --webhook-grace seconds (3, as Pusher) and are not sent when the channel fills \
            again or the member returns within them.

            --apps-file PATH (or PUSHTOP_APPS_FILE) serves several apps, one [[apps]] table each (id, key, secret, \
            name, enabled, max_connections, client_events, max_presence_members, max_event_bytes, \
            api_requests_per_second, client_events_per_second, [[apps.webhooks]] url and event_types), instead \
            of the one app of --app-id, --key and --secret. SIGHUP reloads the file: apps that did not change keep \
            their connections, removed apps' connections are closed with 4003, and a file with an error is refused \
            as a whole (the running apps go on).

            A subscriber that falls more than 1 MiB of unsent frames behind is closed with 4100. Stops cleanly \
            on Ctrl-C or SIGTERM.
            """
    )

    @OptionGroup var server: ServerOptions

    @OptionGroup(title: "Several nodes (Redis)") var cluster: ClusterOptions

    @Option(
        name: .customLong("webhook"),
        help: ArgumentHelp("Post Pusher webhooks to this http(s) URL (repeatable).", valueName: "URL"))
    var webhooks: [String] = []

    @Option(
        name: .customLong("webhook-grace"),
        help: ArgumentHelp(
            "Seconds channel_vacated and member_removed wait; a return within them sends neither (Pusher: 3; 0 sends at once).",
            valueName: "SECONDS"))
    var webhookGrace: Double = 3

    @Option(
        name: .customLong("apps-file"),
        help: ArgumentHelp(
            "Serve the apps of this TOML file (one [[apps]] table each) instead of --app-id/--key/--secret; SIGHUP reloads it (default: $PUSHTOP_APPS_FILE).",
            valueName: "PATH"))
    var appsFile: String?

    @OptionGroup var log: LogLevelOption

    @Option(
        name: .customLong("log-format"),
        help: ArgumentHelp("Log lines on stderr: text, or json (one object per line).", valueName: "FORMAT"))
    var logFormat: LogFormat = .text

    func validate() throws {
        guard webhookGrace >= 0, webhookGrace <= 300 else {
            throw ValidationError("--webhook-grace must be 0 to 300 seconds")
        }
        if appsFilePath != nil, !webhooks.isEmpty {
            throw ValidationError(
                "--webhook goes with the one app of --app-id; with --apps-file, list each app's webhooks in the file ([[apps.webhooks]])"
            )
        }
        for url in webhooks {
            guard let parsed = URL(string: url), let scheme = parsed.scheme, ["http", "https"].contains(scheme),
                parsed.host?.isEmpty == false
            else {
                throw ValidationError("--webhook '\(url)' is not an http(s) URL")
            }
        }
    }

    func run() async throws {
        PushtopLogging.bootstrap(.standardError, level: log.level, format: logFormat)
        // Before the server starts: a signal during the start is not lost (the default handlers are off).
        let signals = SignalWatcher.signals(appsFilePath == nil ? [SIGINT, SIGTERM] : [SIGINT, SIGTERM, SIGHUP])
        let embedded: EmbeddedServer
        do {
            var configuration = server.configuration()
            configuration.webhooks.urls = webhooks
            configuration.webhooks.grace = webhookGrace
            configuration.cluster = cluster.configuration
            if let appsFilePath {
                configuration.apps = try AppsFile.load(path: appsFilePath, webhookGrace: webhookGrace)
            }
            embedded = try await EmbeddedServer.start(configuration)
        } catch {
            FileHandle.standardError.write(Data("pushtop serve: \(error)\n".utf8))
            throw ExitCode.failure
        }
        let lines = banner(embedded)
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))

        var received: Int32 = 0
        for await signal in signals {
            if signal == SIGHUP, let appsFilePath {
                await reload(embedded, from: appsFilePath)
                continue
            }
            received = signal
            break
        }
        Logger(label: "pushtop.serve").info("shutting down", metadata: ["signal": "\(received)"])
        await embedded.shutdown()
    }

    /// What `serve` prints when it starts: where it listens (the first app served), how to publish, how teammates
    /// join, the apps of the file, the metrics, the simulation and the cluster. After a reload, the lines that depend
    /// on the apps are printed again (``reloadedBanner(_:)``).
    private func banner(_ embedded: EmbeddedServer) -> [String] {
        let config = embedded.configuration
        var lines = [
            "pushtop serve: listening on \(embedded.webSocketURL) (app id \(embedded.servedApps[0].credentials.id))"
        ]
        lines += appsLines(embedded)
        for url in webhooks { lines.append("  webhooks to: \(url)") }
        if let appsFilePath {
            lines.append("  apps from \(appsFilePath) (SIGHUP reloads it):")
            lines += embedded.servedApps.map(appLine)
        }
        if config.metricsEndpoint { lines.append("  metrics: \(embedded.httpURL)/metrics") }
        if config.simulate { lines.append("  simulating: presence-lobby, ticker, chat, private-encrypted-vault") }
        if let node = config.cluster {
            lines.append(
                "  cluster: node \(node.nodeID) through \(cluster.redisDisplay) (prefix \(node.prefix)); health: \(embedded.httpURL)/health"
            )
        }
        return lines
    }

    /// The banner's lines after a reload: the first app served now, how to reach it, and the apps of the file.
    private func reloadedBanner(_ embedded: EmbeddedServer) -> [String] {
        var lines = ["  now serving \(embedded.webSocketURL) (app id \(embedded.servedApps[0].credentials.id))"]
        lines += appsLines(embedded)
        lines += embedded.servedApps.map(appLine)
        return lines
    }

    /// How to publish to the first app served now, and how teammates join it through the demo auth endpoint.
    private func appsLines(_ embedded: EmbeddedServer) -> [String] {
        let config = embedded.configuration
        let first = embedded.servedApps[0].credentials
        var lines = [
            "  HTTP API: \(embedded.httpURL)/apps/\(first.id)  (try: pushtop trigger --port \(embedded.port) chat message '{\"text\":\"hi\"}')"
        ]
        if let auth = embedded.authEndpointURL {
            let tlsFlag = config.tls == nil ? " --no-tls" : ""  // wss:// is the client's default
            let simulated =
                config.simulate
                ? " "
                    + [
                        config.simulator.tickerChannel, config.simulator.chatChannel, config.simulator.encryptedChannel,
                        config.simulator.presenceChannel,
                    ].joined(separator: " ") : ""
            lines.append(
                "  teammates join: pushtop --host \(shareableHost) --port \(embedded.port)\(tlsFlag) --key \(first.key) --auth-endpoint \(auth.replacingOccurrences(of: "127.0.0.1", with: shareableHost)) --user-id NAME\(simulated)"
            )
        }
        return lines
    }

    /// The apps file's path: `--apps-file`, else `PUSHTOP_APPS_FILE`.
    private var appsFilePath: String? {
        if let appsFile { return appsFile }
        let fromEnvironment = ProcessInfo.processInfo.environment["PUSHTOP_APPS_FILE"]
        return fromEnvironment?.isEmpty == false ? fromEnvironment : nil
    }

    /// One app in the banner: its name, id, key and state.
    private func appLine(_ app: AppSettings) -> String {
        let state = app.enabled ? "" : " (disabled)"
        return "    \(app.name): id \(app.credentials.id), key \(app.credentials.key)\(state)"
    }

    /// Reads the apps file again and serves its apps; a file with an error changes nothing (the error names the
    /// file, the line and the key).
    private func reload(_ embedded: EmbeddedServer, from path: String) async {
        let logger = Logger(label: "pushtop.serve")
        do {
            let apps = try AppsFile.load(path: path, webhookGrace: webhookGrace)
            let summary = try await embedded.reload(apps: apps)
            logger.notice("reloaded the apps file", metadata: ["path": "\(path)", "summary": "\(summary)"])
            let lines = ["pushtop serve: reloaded \(path): \(summary)"] + reloadedBanner(embedded)
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        } catch {
            logger.error("refused the apps file; the running apps go on", metadata: ["error": "\(error)"])
            FileHandle.standardError.write(
                Data("pushtop serve: reload refused, the running apps go on: \(error)\n".utf8))
        }
    }

    /// The host teammates should use: the bind address, or this machine's name when bound to all interfaces.
    private var shareableHost: String {
        switch server.bind {
        case "0.0.0.0", "::": return ProcessInfo.processInfo.hostName
        default: return server.bind
        }
    }
}
