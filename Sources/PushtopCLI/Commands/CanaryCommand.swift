import ArgumentParser
import Foundation
import PusherChannels
import PushtopConfig
import PushtopDashboard

/// `pushtop canary`: a delivery audit over time, headless. Publishes sequence-numbered events through the HTTP
/// API (rotating through the nodes) and receives them on one connection per node.
struct CanaryCommand: AsyncParsableCommand, NodeOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "canary",
        abstract: "Audit delivery over time: publish numbered events through each node, receive them on every node.",
        discussion: """
            Prints JSON lines as it goes (start, missed, duplicated, reordered, late, stall, resumed, disconnected, \
            reconnected, publish_error, latency every few seconds) and ends with a summary line: {"type":"summary",\
            "nodes":[{"node":…,"published":…,"received":…,"lost":…,"duplicated":…,"reordered":…,"p50_ms":…,\
            "p99_ms":…,"away":…,"reconnects":…}],"ok":…}. A canary a node misses while its connection is down \
            counts as away, not lost. Exit 0 when nothing was lost or duplicated, 1 otherwise, 2 on bad usage.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(
        name: .customLong("app-id"),
        help: ArgumentHelp("App id, for the HTTP API (env PUSHER_APP_ID).", valueName: "ID"))
    var appID: String?

    @OptionGroup var nodes: NodeOption<CanaryCommand>
    static let nodeHelp =
        "A node of the app (repeatable): one connection per node; canaries are published through each in turn. Default: --host and --port."

    @Option(help: ArgumentHelp("Canaries published per second (e.g. 10 or 10/s).", valueName: "N/s"))
    var rate: String = "10"

    @Option(help: ArgumentHelp("Seconds to publish for, or 'forever' (until SIGINT/SIGTERM).", valueName: "S"))
    var duration: String = "30"

    @Option(
        help: ArgumentHelp(
            "Channel to publish on (default: a new private-pushtop-canary-… channel).", valueName: "NAME"))
    var channel: String?

    @Option(help: ArgumentHelp("Seconds a canary may take to arrive before it counts as missed.", valueName: "S"))
    var grace: Double = 3

    @Option(name: .customLong("report-every"), help: ArgumentHelp("Seconds between latency lines.", valueName: "S"))
    var reportEvery: Double = 5

    mutating func validate() throws {
        guard parsedRate != nil else {
            throw ValidationError("--rate '\(rate)' is not a positive number of events per second")
        }
        guard duration == "forever" || parsedDuration != nil else {
            throw ValidationError("--duration '\(duration)' is not a positive number of seconds or 'forever'")
        }
        guard grace > 0, grace.isFinite else { throw ValidationError("--grace must be a positive number of seconds") }
        guard reportEvery > 0, reportEvery.isFinite else {
            throw ValidationError("--report-every must be a positive number of seconds")
        }
        if let channel {
            do { try ChannelName.validate(channel) } catch { throw ValidationError("--channel: \(error)") }
            if channel.hasPrefix("private-encrypted-") {
                throw ValidationError("--channel: encrypted channels are not supported by the canary")
            }
        }
        try nodes.requireDistinct()
    }

    var parsedRate: Double? {
        let text = rate.hasSuffix("/s") ? String(rate.dropLast(2)) : rate
        return Double(text).flatMap { $0 > 0 && $0.isFinite && $0 <= 10_000 ? $0 : nil }
    }

    var parsedDuration: Double? {
        Double(duration.hasSuffix("s") ? String(duration.dropLast()) : duration).flatMap {
            $0 > 0 && $0.isFinite ? $0 : nil
        }
    }

    func run() async throws {
        PushtopLogging.bootstrap(.standardError)
        let (environment, envFile) = try connection.resolvedEnvironment()
        connection.announceEnvFile(envFile, command: "canary")
        func env(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let profile = try connection.loadProfile(environment: environment)
        var options = try connection.clientOptions(environment: environment, profile: profile)
        guard let secret = connection.secret ?? env("PUSHER_APP_SECRET") ?? profile.secret else {
            throw ValidationError(
                "the canary publishes through the HTTP API: give --secret (or an --env-file with the app secret)")
        }
        guard let appID = self.appID ?? env("PUSHER_APP_ID") ?? profile.appID else {
            throw ValidationError(
                "the canary publishes through the HTTP API: give --app-id (or an --env-file with the app id)")
        }
        let channel = self.channel ?? "private-pushtop-canary-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
        if channel.hasPrefix("private-") || channel.hasPrefix("presence-"), options.authorizer == nil {
            throw ValidationError("--channel \(channel) needs authorization: give --secret or --auth-endpoint")
        }
        let useTLS = options.connection.useTLS
        var addresses = nodes.addresses(or: profile)
        if addresses.isEmpty {
            addresses = [NodeAddress(host: options.resolvedHost, port: options.port ?? (useTLS ? 443 : 80))]
        }
        var runnerNodes: [CanaryRunner.Node] = []
        let clusterHost = options.host == nil
        for address in addresses {
            if !clusterHost || !nodes.values.isEmpty { options.host = address.host }
            options.port = address.port
            let api =
                clusterHost && options.host == nil
                ? PusherAPIConfiguration.cluster(options.cluster, appID: appID, key: options.key, secret: secret)
                : PusherAPIConfiguration(
                    appID: appID, key: options.key, secret: secret, host: address.host,
                    port: address.port, useTLS: useTLS)
            runnerNodes.append(
                CanaryRunner.Node(
                    name: address.description, client: PusherClient(options: options),
                    api: PusherAPIClient(configuration: api)))
        }
        let runner = CanaryRunner(
            nodes: runnerNodes, channel: channel, rate: parsedRate!,
            duration: duration == "forever" ? nil : parsedDuration, grace: grace, reportEvery: reportEvery)
        let signals = SignalWatcher.terminationSignals()
        let signalTask = Task {
            for await _ in signals {
                await runner.requestStop()
                return
            }
        }
        let audit = await runner.run()
        signalTask.cancel()
        if !audit.ok { throw ExitCode(1) }
    }

    /// Whether the command line runs the canary (its usage errors exit 2, not 64).
    static func isInvocation(_ arguments: [String] = CommandLine.arguments) -> Bool {
        arguments.dropFirst().first == "canary"
    }
}
