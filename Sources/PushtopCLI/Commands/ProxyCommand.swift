import ArgumentParser
import Foundation
import Logging
import PushtopProxy

/// `pushtop proxy`: stands between an app's clients and its server, relays both ways unchanged, shows what it
/// relays as the app's console feed, and injects Pusher-aware faults on demand.
struct ProxyCommand: AsyncParsableCommand, ListenOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract: "Relay an app's WebSockets and HTTP API to its server, with a console feed and Pusher-aware faults.",
        discussion: """
            Point the app's clients (its Pusher/Reverb host and port) at --listen; the proxy relays each \
            connection to --upstream (ws:// or wss://, or the --env-file's host, port and scheme) with its path, \
            query and headers (plus X-Forwarded-For), frames unchanged both ways, the upstream's socket ids and \
            close codes. The HTTP API (/apps/...) passes through to the upstream's HTTP side (--upstream-api for a \
            separate host). What it relays is the app's debug console: pushtop console --node HOST:PORT (and the \
            dashboard's C) read GET /apps/ID/console, signed with the app's secret, as on pushtop serve.
            Faults (--fault RULE, repeatable, or POST /apps/ID/proxy/faults with {"rule":"..."}, signed): \
            close:CODE (1006 drops TCP), refuse-subscribe:N, drop, duplicate, delay:MS, stall, outage:SECONDS, \
            with channel=, event=, socket=, user=, fraction=, after=, times= (see docs/proxy.md). Each applied \
            fault is a `fault` row; what each hit client did next is a `recovered` row, and --report prints a \
            summary at exit.
            Examples: pushtop proxy --listen 127.0.0.1:6002 --upstream ws://127.0.0.1:8080 --env-file .env;             pushtop proxy --upstream ws://127.0.0.1:6001 --fault 'close:4200,after=5s,times=1' --report
            """
    )

    @OptionGroup var listen: ListenOption<ProxyCommand>
    static let listenHelp = "Where the app's clients connect (a non-loopback address needs --allow-remote)."

    @Option(
        name: .customLong("upstream"),
        help: ArgumentHelp(
            "The app's server, ws://HOST:PORT or wss://HOST:PORT (default: --host/--port/--tls or the --env-file's).",
            valueName: "URL"))
    var upstream: String?

    @Option(
        name: .customLong("upstream-api"),
        help: ArgumentHelp(
            "The server's HTTP API base when it is not the upstream's host and port (Pusher: https://api-CLUSTER.pusher.com).",
            valueName: "URL"))
    var upstreamAPI: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp("Trust this PEM CA for a wss:// upstream and an https:// API.", valueName: "PATH"))
    var caFile: String?

    @Flag(
        name: .customLong("allow-remote"),
        help: "Allow --listen on an address other machines can reach (the console and faults still need the secret).")
    var allowRemote = false

    @Option(
        name: .customLong("fault"),
        help: ArgumentHelp(
            "A fault rule, e.g. close:4200,after=5s,times=1 or refuse-subscribe:1,channel=private-* (repeatable).",
            valueName: "RULE"))
    var faults: [String] = []

    @Flag(name: .customLong("report"), help: "Print a summary at exit: faults applied, reconnections, resubscriptions.")
    var report = false

    @Option(
        name: .customLong("recovery-timeout"),
        help: ArgumentHelp(
            "Seconds a client hit by a fault has to reconnect and resubscribe before it counts as not recovered.",
            valueName: "SECONDS"))
    var recoveryTimeout: Double = 30

    @OptionGroup(visibility: .hidden) var deadlines: HTTPDeadlineOptions

    @OptionGroup(title: "The app (its credentials sign the console feed and the control endpoint)") var api: APIOptions

    @OptionGroup var envFile: EnvFileOption

    @OptionGroup var log: LogLevelOption

    func validate() throws {
        try listen.check()
        guard recoveryTimeout > 0 else { throw ValidationError("--recovery-timeout must be more than 0 seconds") }
        for fault in faults {
            do {
                _ = try FaultRule(parsing: fault)
            } catch {
                throw ValidationError("--fault \(error)")
            }
        }
    }

    func run() async throws {
        PushtopLogging.bootstrap(.standardError, level: log.level)
        let signals = SignalWatcher.signals([SIGINT, SIGTERM])
        let api = try self.api.overlaid(
            by: envFile, command: "proxy", purpose: "the proxy signs its console feed and control endpoint with it")
        let address = listen.address
        var configuration = ProxyConfiguration(
            host: address.host, port: address.port, upstream: upstream ?? Self.upstream(api),
            upstreamAPI: upstreamAPI ?? api.cluster.map { "https://api-\($0).pusher.com" }, caFile: caFile,
            allowRemote: allowRemote,
            app: .init(id: api.appID, key: api.key, secret: api.secret),
            faults: faults.compactMap { try? FaultRule(parsing: $0) },
            recoveryTimeout: .milliseconds(Int64(recoveryTimeout * 1000)))
        configuration.compression = true
        configuration.requestTimeout = .milliseconds(Int64(deadlines.requestTimeout * 1000))
        configuration.idleTimeout = .milliseconds(Int64(deadlines.idleTimeout * 1000))
        let proxy: ProxyServer
        do {
            proxy = try await ProxyServer.start(configuration)
        } catch {
            FileHandle.standardError.write(Data("pushtop proxy: \(error)\n".utf8))
            throw ExitCode.failure
        }
        let shownHost = address.host.contains(":") ? "[\(address.host)]" : address.host
        var lines = [
            "pushtop proxy: listening on ws://\(shownHost == "0.0.0.0" ? "127.0.0.1" : shownHost):\(proxy.port) → \(configuration.upstream) (app id \(api.appID))",
            "  HTTP API passed through to \(configuration.upstreamAPIBase)",
            "  console: pushtop console --node \(shownHost):\(proxy.port) --app-id \(api.appID) --key \(api.key) --secret …",
        ]
        if !ProxyConfiguration.isLoopback(address.host) {
            lines.append("  listening beyond loopback (--allow-remote): other machines can connect")
        }
        for rule in configuration.faults { lines.append("  fault: \(rule)") }
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        var received: Int32 = 0
        for await signal in signals {
            received = signal
            break
        }
        Logger(label: "pushtop.proxy").info("shutting down", metadata: ["signal": "\(received)"])
        let summary = proxy.report
        await proxy.shutdown()
        if report { FileHandle.standardOutput.write(Data((summary.description + "\n").utf8)) }
    }

    /// The upstream of `api`'s host, port and scheme (Pusher's `ws-CLUSTER.pusher.com` with a cluster).
    static func upstream(_ api: APIOptions) -> String {
        if let cluster = api.cluster { return "wss://ws-\(cluster).pusher.com:443" }
        let host = api.host.contains(":") ? "[\(api.host)]" : api.host
        return "\(api.tls ? "wss" : "ws")://\(host):\(api.port)"
    }
}
