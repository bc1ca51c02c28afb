import ArgumentParser
import Foundation
import Logging
import PusherChannels
import PusherProtocol
import PushtopConfig

/// `pushtop webhooks`: receives the webhooks of Pusher, soketi, sockudo or `pushtop serve` and prints them as
/// debug-console rows, one JSON object per line (the rows `pushtop console` prints, with only the webhook source).
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Receive webhooks, verify and check them, print them as console rows (JSON lines).",
        discussion: """
            Point the server's webhook URL at http://HOST:PORT/ (any path). Each event becomes a row with \
            "source":"webhook": occupied, vacated, presence_event (member_added, member_removed), client_event, \
            subscription_count, and subscribed with event cache_miss. A signature that does not verify with \
            --secret (or an --app) is a webhook_rejected row (expected_signature, received_signature, cause: \
            wrong secret, body re-encoded by a proxy, key of another app, unknown key); a deviation from Pusher's \
            format or timing is a webhook_problem row naming it (unwrapped_events, no_events, invalid_time_ms, \
            missing_fields, unknown_event, duplicate_event, vacated_while_subscribed with --check-api, no_grace, \
            not_json, body_too_large, overloaded, forward_failed). Without --key/--secret, --app or --env-file \
            nothing is verified.

            The sender's answer: with --forward, the first target's status, headers and body (every request is \
            passed on byte for byte, verified or not: pushtop stays transparent in front of the app; each target's \
            answer is a webhook_sent or webhook_failed row). Without --forward: 401 when the signature does not \
            verify, 400 when the body is not JSON, else 200 {}. Bodies over 1 MiB get 413; beyond 64 requests or \
            8 MiB of bodies in progress, 503.

            The address it listens on is printed on stderr. Exit 0 on SIGINT/SIGTERM, 1 when it cannot listen.
            """
    )

    @Option(
        name: .customLong("listen"),
        help: ArgumentHelp("Where to receive webhooks (port 0: any free port).", valueName: "HOST:PORT"))
    var listen: String

    @Option(
        name: .customLong("forward"),
        help: ArgumentHelp(
            "Pass every request on unchanged to this URL (repeatable; the request's path is appended to the URL's).",
            valueName: "URL"))
    var forward: [String] = []

    @Option(
        name: .customLong("forward-timeout"),
        help: ArgumentHelp("Seconds a --forward target has to answer.", valueName: "SECONDS"))
    var forwardTimeout: Double = 10

    /// Seconds a connection may stay silent (hidden: for the tests of slow senders).
    @Option(name: .customLong("idle-timeout"), help: .hidden)
    var idleTimeout: Double = 30

    @Option(
        name: .customLong("type"),
        help: ArgumentHelp("Print only rows of this type (repeatable).", valueName: "TYPE"))
    var types: [String] = []

    @Option(
        name: .customLong("app"),
        help: ArgumentHelp("Another app whose webhooks verify (repeatable).", valueName: "ID:KEY:SECRET"))
    var apps: [String] = []

    @Flag(
        name: .customLong("check-api"),
        help:
            "Ask the server's HTTP API (--host/--port/--tls or --cluster) whether a vacated channel still has subscribers."
    )
    var checkAPI = false

    @OptionGroup var api: APIOptions

    @OptionGroup var envFile: EnvFileOption

    mutating func validate() throws {
        guard NodeAddress.listening(listen) != nil else {
            throw ValidationError("--listen: expected HOST:PORT, found '\(listen)'")
        }
        for url in forward {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil
            else { throw ValidationError("--forward: expected an http(s) URL, found '\(url)'") }
        }
        guard forwardTimeout > 0, forwardTimeout <= 300 else {
            throw ValidationError("--forward-timeout must be more than 0 and at most 300 seconds")
        }
        for type in types where ConsoleRowType(rawValue: type) == nil {
            let known = ConsoleRowType.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--type: unknown type '\(type)' (one of \(known))")
        }
        for app in apps where Self.credential(app) == nil {
            throw ValidationError("--app: expected ID:KEY:SECRET, found '\(app.split(separator: ":").first ?? "")…'")
        }
    }

    /// `ID:KEY:SECRET` (the secret may contain `:`).
    static func credential(_ text: String) -> WebhookCredential? {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, !parts[1].isEmpty, !parts[2].isEmpty else { return nil }
        return WebhookCredential(appID: parts[0].isEmpty ? nil : parts[0], key: parts[1], secret: parts[2])
    }

    func run() async throws {
        PushtopLogging.bootstrap(.standardError)
        let given = CommandLineFlags.given(["--key": "key", "--secret": "secret", "--app-id": "app_id"])
        let resolved = try api.overlaid(by: envFile, command: "webhooks", purpose: "to verify webhook signatures")
        var credentials: [WebhookCredential] = []
        if !given.isEmpty || envFile.path != nil {
            credentials.append(WebhookCredential(appID: resolved.appID, key: resolved.key, secret: resolved.secret))
        }
        credentials += apps.compactMap(Self.credential)
        if credentials.isEmpty {
            StandardStreams.writeErr(
                "pushtop webhooks: no --key/--secret, --app or --env-file: signatures are not checked\n")
        }
        let address = NodeAddress.listening(listen)!
        var settings = WebhookReceiverSettings(
            host: address.host, port: address.port, credentials: credentials, forward: forward,
            subscriberCount: checkAPI ? Self.subscriberCount(api: resolved, credentials: credentials) : nil)
        settings.forwardTimeout = forwardTimeout
        settings.idleTimeout = max(0.1, idleTimeout)
        let receiver = WebhookReceiver(settings: settings, logger: Logger(label: "pushtop.webhooks"))
        let wanted = Set(types.compactMap(ConsoleRowType.init(rawValue:)))
        let forwarding = forward.isEmpty ? "" : " (forwarding to \(forward.joined(separator: ", ")))"
        let signals = SignalWatcher.terminationSignals()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await receiver.run(
                    listening: { address in
                        StandardStreams.writeErr("pushtop webhooks: listening on http://\(address)/\(forwarding)\n")
                    },
                    deliver: { rows in
                        var out = ""
                        for row in rows where wanted.isEmpty || wanted.contains(row.type) {
                            out += row.jsonLine + "\n"
                        }
                        if !out.isEmpty { StandardStreams.writeOut(out) }
                    })
            }
            group.addTask {
                for await _ in signals { return }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Asks the HTTP API how many subscribers a channel has, as the app the webhook verified for (else the first).
    static func subscriberCount(api: APIOptions, credentials: [WebhookCredential])
        -> @Sendable (String?, String) async -> Int?
    {
        let clients = credentials.map { credential in
            let id = credential.appID ?? api.appID
            let configuration =
                api.cluster.map {
                    PusherAPIConfiguration.cluster($0, appID: id, key: credential.key, secret: credential.secret)
                }
                ?? PusherAPIConfiguration(
                    appID: id, key: credential.key, secret: credential.secret, host: api.host, port: api.port,
                    useTLS: api.tls)
            return (id, PusherAPIClient(configuration: configuration))
        }
        return { appID, channel in
            guard let client = clients.first(where: { $0.0 == appID })?.1 ?? clients.first?.1,
                let answer = try? await client.channel(channel, info: ["subscription_count"]),
                let json = answer.json
            else { return nil }
            // Servers that do not count subscriptions still say whether the channel is occupied.
            return json["subscription_count"]?.intValue ?? (json["occupied"]?.boolValue == true ? 1 : 0)
        }
    }
}
