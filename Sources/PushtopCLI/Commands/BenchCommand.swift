import ArgumentParser
import Foundation
import PusherChannels
import PushtopConfig
import PushtopDashboard
import PushtopServer

/// `pushtop bench`: publish through the HTTP API to N subscribers and measure delivery.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure a Pusher-protocol server: throughput, delivery ratio and latency percentiles.",
        discussion: """
            With no --key, runs against the embedded server on a free loopback port. Otherwise give the app's \
            credentials and either --cluster (Pusher) or --host/--port (soketi, Reverb, pushtop serve).
            """
    )

    @Option(help: "App key (default: the embedded server's).") var key: String?
    @Option(help: "App secret, to sign the HTTP API requests.") var secret: String?
    @Option(name: .customLong("app-id"), help: "App id.") var appID: String?
    @Option(help: "Pusher cluster: ws-CLUSTER.pusher.com and api-CLUSTER.pusher.com over TLS.") var cluster: String?
    @Option(help: "Server host for WebSocket and HTTP API.") var host: String?
    @Option(help: "WebSocket port (default 443 with TLS, 80 without).") var port: Int?
    @Option(name: .customLong("api-port"), help: "HTTP API port (default: the WebSocket port).") var apiPort: Int?
    @Flag(
        name: .customLong("tls"), inversion: .prefixedNo,
        help: "wss:// and https:// (the default) or, with --no-tls, plain ws:// and http://.")
    var tls: Bool?
    @Option(help: "Events published per second.") var rate: Int = 1000
    @Option(help: "Subscriber connections (0: only publish, e.g. to feed other consumers of the channel).")
    var subscribers: Int = 10
    @Option(help: "Seconds to publish for.") var duration: Double = 10
    @Option(help: "Channel to publish on.") var channel: String = "bench"
    @Option(name: .customLong("payload-bytes"), help: "Approximate size of each event's data.") var payloadBytes: Int =
        100
    @Flag(help: "Print the result as one JSON object.") var json = false
    @OptionGroup var envFile: EnvFileOption

    mutating func validate() throws {
        guard rate > 0 else { throw ValidationError("--rate must be at least 1") }
        guard subscribers >= 0 else { throw ValidationError("--subscribers must be 0 or more") }
        guard duration > 0, duration.isFinite else {
            throw ValidationError("--duration must be a positive number of seconds")
        }
        do { try ChannelName.validate(channel) } catch { throw ValidationError("--channel: \(error)") }
        if key != nil && (secret == nil || appID == nil) {
            throw ValidationError("--key needs --secret and --app-id (the bench publishes through the HTTP API)")
        }
        if key != nil && cluster == nil && host == nil {
            throw ValidationError("--key needs --cluster or --host")
        }
    }

    func run() async throws {
        PushtopLogging.bootstrap(.standardError)
        var embedded: EmbeddedServer?
        let clientOptions: PusherClientOptions
        let api: PusherAPIConfiguration
        let target: String
        // --env-file fills what the flags leave out.
        let file = try envFile.settings()?.requiring(
            ["key", "secret", "app_id"].filter { flagsOverEnvFile[$0] == nil },
            for: "the bench publishes through the HTTP API")
        if let file {
            StandardStreams.writeErr("pushtop bench: \(EnvFileOption.describe(file, flags: flagsOverEnvFile))\n")
        }
        let f = file?.profile ?? Profile()
        let key = self.key ?? f.key, secret = self.secret ?? f.secret, appID = self.appID ?? f.appID
        let host = self.host ?? f.host, port = self.port ?? f.port
        let cluster = self.cluster ?? (host == nil ? f.cluster : nil)
        let tls = self.tls ?? f.tls ?? true
        if let key, let secret, let appID {
            let useTLS = cluster != nil || tls
            let connection = ConnectionConfiguration(useTLS: useTLS)
            if let cluster {
                clientOptions = PusherClientOptions(key: key, cluster: cluster, connection: connection)
                api = .cluster(cluster, appID: appID, key: key, secret: secret)
                target = "Pusher cluster \(cluster)"
            } else {
                let wsHost = host ?? "127.0.0.1"
                clientOptions = PusherClientOptions(key: key, host: wsHost, port: port, connection: connection)
                let wsPort = port ?? (useTLS ? 443 : 80)
                api = PusherAPIConfiguration(
                    appID: appID, key: key, secret: secret, host: wsHost,
                    port: apiPort ?? wsPort, useTLS: useTLS)
                target = "\(wsHost):\(wsPort)"
            }
        } else {
            let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
            embedded = server
            let app = server.configuration.app
            clientOptions = PusherClientOptions(
                key: app.key, host: "127.0.0.1", port: server.port,
                connection: ConnectionConfiguration(useTLS: false))
            api = PusherAPIConfiguration(appID: app.id, key: app.key, secret: app.secret, port: server.port)
            target = "embedded server 127.0.0.1:\(server.port)"
        }
        let runner = BenchRunner(
            client: clientOptions, api: api, target: target, channel: channel, subscribers: subscribers, rate: rate,
            duration: duration, payloadBytes: payloadBytes, progress: { StandardStreams.writeErr($0 + "\n") })
        do {
            let result = try await runner.run()
            StandardStreams.writeOut((json ? result.json : result.text) + "\n")
        } catch {
            await embedded?.shutdown()
            StandardStreams.writeErr("pushtop bench: \(error)\n")
            throw ExitCode(1)
        }
        await embedded?.shutdown()
    }

    /// The bench's flags that win over the `.env` file.
    private var flagsOverEnvFile: [String: String] {
        var flags: [String: String] = [:]
        for (field, flag, given) in [
            ("key", "--key", key != nil), ("secret", "--secret", secret != nil),
            ("app_id", "--app-id", appID != nil), ("host", "--host", host != nil), ("port", "--port", port != nil),
            ("cluster", "--cluster", cluster != nil),
            ("tls", self.tls == false ? "--no-tls" : "--tls", self.tls != nil),
        ] where given {
            flags[field] = flag
        }
        return flags
    }
}
