import ArgumentParser
import Foundation
import Logging
import PushtopServer

/// Options of the embedded server (`pushtop serve`, `pushtop demo`): where it listens and the app it serves.
struct ServerOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("Listen address (0.0.0.0 lets teammates on the network join).", valueName: "HOST"))
    var bind: String = "127.0.0.1"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "One port for WebSocket /app/{key} and the HTTP API /apps/{id}/...; 0 picks a free one.", valueName: "PORT")
    )
    var port: Int = 6001

    @Option(name: .customLong("app-id"), help: ArgumentHelp("App id (numeric, as Pusher's).", valueName: "ID"))
    var appID: String = "1"

    @Option(name: .long, help: ArgumentHelp("App key clients connect with.", valueName: "KEY"))
    var key: String = "pushtop-key"

    @Option(
        name: .long, help: ArgumentHelp("App secret that signs subscriptions and API requests.", valueName: "SECRET"))
    var secret: String = "pushtop-secret"

    @Flag(
        name: .long,
        help:
            "Built-in traffic: members join and leave presence-lobby, events on ticker, chat and private-encrypted-vault."
    )
    var simulate: Bool = false

    // Churn for --simulate (kept together: a roster that changes several times a second, events at a rate).
    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --simulate: members of presence-lobby join or leave this many times a second (from 100 users, about half online).",
            valueName: "PER_SECOND"))
    var churn: Double = 0

    @Option(
        name: .customLong("churn-for"),
        help: ArgumentHelp(
            "With --churn: stop membership changes after this many seconds (the roster then holds still).",
            valueName: "SECONDS"))
    var churnFor: Double?

    @Option(
        name: .customLong("event-rate"),
        help: ArgumentHelp("With --simulate: price ticks on ticker per second.", valueName: "PER_SECOND"))
    var eventRate: Double?

    @Option(
        name: .customLong("activity-timeout"),
        help: ArgumentHelp(
            "Seconds of client silence before the server pings (then 4201 after --pong-timeout).", valueName: "SECONDS")
    )
    var activityTimeout: Double = 120

    @Option(
        name: .customLong("pong-timeout"),
        help: ArgumentHelp("Seconds to wait for a pong before closing with 4201.", valueName: "SECONDS"))
    var pongTimeout: Double = 30

    @Option(
        name: .customLong("encryption-master-key-base64"),
        help: ArgumentHelp(
            "32-byte master key of private-encrypted- channels, base64 (default: a public demo key).", valueName: "KEY")
    )
    var encryptionMasterKeyBase64: String?

    @Flag(
        name: .customLong("no-auth-endpoint"),
        help: "Do not serve the development-only POST /pusher/auth and /pusher/user-auth endpoints.")
    var noAuthEndpoint: Bool = false

    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp(
            "PEM certificate (chain): serve wss:// and https:// on the port (with --tls-key).", valueName: "PEM"))
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key of --tls-cert.", valueName: "PEM"))
    var tlsKey: String?

    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "Connections served at once; more wait until one closes (a warning is logged).", valueName: "N"))
    var maxConnections: Int = 20_000

    @OptionGroup var deadlines: HTTPDeadlineOptions

    @Flag(name: .customLong("no-metrics"), help: "Do not serve Prometheus metrics at GET /metrics.")
    var noMetrics: Bool = false

    @Flag(
        name: .customLong("no-compression"),
        help: "Refuse WebSocket compression (permessage-deflate), which is accepted by default when a client offers it."
    )
    var noCompression: Bool = false

    func validate() throws {
        guard !appID.isEmpty, appID.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw ValidationError(
                "--app-id must be numeric (Pusher's app ids are; the official server SDKs refuse others), got '\(appID)'"
            )
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535, got \(port)") }
        guard !key.isEmpty, !secret.isEmpty else { throw ValidationError("--key and --secret must not be empty") }
        guard activityTimeout > 0, pongTimeout > 0 else {
            throw ValidationError("--activity-timeout and --pong-timeout must be positive")
        }
        if let encryptionMasterKeyBase64 {
            guard let data = Data(base64Encoded: encryptionMasterKeyBase64), data.count == 32 else {
                throw ValidationError("--encryption-master-key-base64 must be 32 bytes, base64-encoded")
            }
        }
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together")
        }
        for path in [tlsCert, tlsKey].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: path) {
            throw ValidationError("cannot read \(path)")
        }
        guard churn >= 0, churn <= 1000 else {
            throw ValidationError("--churn must be 0...1000 changes a second, got \(churn)")
        }
        if let churnFor, !(churnFor > 0) { throw ValidationError("--churn-for must be positive, got \(churnFor)") }
        if let eventRate, !(eventRate > 0 && eventRate <= 10_000) {
            throw ValidationError("--event-rate must be more than 0 and at most 10000 a second, got \(eventRate)")
        }
        guard maxConnections > 0 else { throw ValidationError("--max-connections must be positive") }
    }

    /// The embedded server's configuration; `simulate` overrides the flag (demo mode turns it on).
    func configuration(simulate: Bool? = nil) -> ServerConfiguration {
        var app = AppCredentials(id: appID, key: key, secret: secret)
        if let encryptionMasterKeyBase64, let data = Data(base64Encoded: encryptionMasterKeyBase64) {
            app.encryptionMasterKey = Array(data)
        }
        var configuration = ServerConfiguration(
            host: bind, port: port, app: app, activityTimeout: activityTimeout, pongTimeout: pongTimeout,
            demoAuthEndpoint: !noAuthEndpoint, simulate: simulate ?? self.simulate,
            tls: tlsCert.flatMap { cert in tlsKey.map { TLSFiles(certificatePath: cert, keyPath: $0) } },
            requestTimeout: deadlines.requestTimeout, idleTimeout: deadlines.idleTimeout,
            maxConnections: maxConnections)
        configuration.metricsEndpoint = !noMetrics
        configuration.compression = !noCompression
        configuration.simulator.churn(changesPerSecond: churn, duration: churnFor)
        if let eventRate { configuration.simulator.eventRate(eventRate) }
        return configuration
    }
}

/// Options of commands that call the HTTP API (`pushtop trigger`): which server, and as which app.
struct APIOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("API host (ignored with --cluster).", valueName: "HOST"))
    var host: String = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("API port (ignored with --cluster).", valueName: "PORT"))
    var port: Int = 6001

    /// `--tls` / `--no-tls` (the last one given wins), the same spellings as the client commands.
    @Flag(
        name: .customLong("tls"), inversion: .prefixedNo,
        help: "Use HTTPS (--tls) or plain HTTP (--no-tls, the default).")
    var tls: Bool = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Pusher cluster (e.g. eu, mt1): sends to api-CLUSTER.pusher.com over HTTPS.", valueName: "CLUSTER"))
    var cluster: String?

    @Option(name: .customLong("app-id"), help: ArgumentHelp("App id.", valueName: "ID"))
    var appID: String = "1"

    @Option(name: .long, help: ArgumentHelp("App key.", valueName: "KEY"))
    var key: String = "pushtop-key"

    @Option(name: .long, help: ArgumentHelp("App secret (signs the request; never sent).", valueName: "SECRET"))
    var secret: String = "pushtop-secret"

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be 1...65535, got \(port)") }
        guard !key.isEmpty, !secret.isEmpty, !appID.isEmpty else {
            throw ValidationError("--app-id, --key and --secret must not be empty")
        }
    }
}
