import ArgumentParser
import Foundation
import PusherChannels

extension ReconnectPolicy.Kind: ExpressibleByArgument {}

/// The connection options every client command shares (`pushtop`, `watch`, ...).
struct ConnectionOptions: ParsableArguments {
    @Option(help: "App key (env PUSHER_APP_KEY).")
    var key: String?

    @Option(help: "Cluster: host ws-NAME.pusher.com (env PUSHER_CLUSTER; default mt1).")
    var cluster: String?

    @Option(help: "Custom WebSocket host, e.g. 127.0.0.1 for soketi (env PUSHER_HOST).")
    var host: String?

    @Option(help: "Custom port (default 443 with TLS, 80 without; env PUSHER_PORT).")
    var port: Int?

    @Flag(name: .customLong("no-tls"), help: "Plain ws:// instead of wss://.")
    var noTLS = false

    @Option(help: "Channel authorization endpoint (POST form socket_id, channel_name).")
    var authEndpoint: String?

    @Option(name: .customLong("auth-header"), help: ArgumentHelp("Extra header on auth requests (repeatable).", valueName: "'Name: value'"))
    var authHeaders: [String] = []

    @Option(name: .customLong("auth-param"), help: ArgumentHelp("Extra form parameter on auth requests (repeatable).", valueName: "name=value"))
    var authParams: [String] = []

    @Option(help: "Sign private/presence subscriptions locally with the app secret (development; env PUSHER_APP_SECRET).")
    var secret: String?

    @Option(name: .customLong("user-id"), help: "Presence user id when signing locally (default: random); sent as user_id to an auth endpoint.")
    var userID: String?

    @Option(name: .customLong("user-info"), help: "Presence user info (JSON) when signing locally.")
    var userInfo: String?

    @Option(help: "Idle seconds before the client pings (default: the server's value).")
    var activityTimeout: Double?

    @Option(help: "Seconds to wait for a pong before reconnecting (default 30).")
    var pongTimeout: Double?

    @Option(help: "Reconnection policy: exponential, linear or none (default exponential).")
    var reconnect: ReconnectPolicy.Kind?

    @Option(help: "Give up after N failed attempts in a row; 0 = forever (default 6).")
    var maxRetries: Int?

    @Option(help: "Shortest reconnect delay in seconds (default 1).")
    var minDelay: Double?

    @Option(help: "Longest reconnect delay in seconds (default 60).")
    var maxDelay: Double?

    @Option(help: "Read options from this profile of the config file.")
    var profile: String?

    mutating func validate() throws {
        for header in authHeaders where Self.splitHeader(header) == nil {
            throw ValidationError("--auth-header '\(header)' is not 'Name: value'")
        }
        for param in authParams where Self.splitParam(param) == nil {
            throw ValidationError("--auth-param '\(param)' is not 'name=value'")
        }
        if let userInfo, JSONValue.parseIfJSON(userInfo) == nil {
            throw ValidationError("--user-info is not JSON: \(userInfo)")
        }
        if let port, !(1...65535).contains(port) {
            throw ValidationError("--port \(port) is not a port number (1-65535)")
        }
        for (name, value) in [("--activity-timeout", activityTimeout), ("--pong-timeout", pongTimeout),
                              ("--min-delay", minDelay), ("--max-delay", maxDelay)] {
            if let value, !(value >= 0) || !value.isFinite {
                throw ValidationError("\(name) must be a non-negative number of seconds")
            }
        }
        if let maxRetries, maxRetries < 0 {
            throw ValidationError("--max-retries must be 0 (forever) or more")
        }
        if let minDelay, let maxDelay, minDelay > maxDelay {
            throw ValidationError("--min-delay (\(minDelay)) is larger than --max-delay (\(maxDelay))")
        }
        if let authEndpoint, URL(string: authEndpoint)?.scheme?.hasPrefix("http") != true {
            throw ValidationError("--auth-endpoint '\(authEndpoint)' is not an http(s) URL")
        }
    }

    static func splitHeader(_ text: String) -> (name: String, value: String)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        return (name, value)
    }

    static func splitParam(_ text: String) -> (name: String, value: String)? {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else { return nil }
        return (String(text[..<eq]), String(text[text.index(after: eq)...]))
    }

    /// Client options from the flags, then the environment (flags win).
    func clientOptions(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PusherClientOptions {
        guard let key = key ?? environment["PUSHER_APP_KEY"], !key.isEmpty else {
            throw ValidationError("no app key: give --key KEY (or set PUSHER_APP_KEY)")
        }
        let host = host ?? environment["PUSHER_HOST"]
        var port = self.port
        if port == nil, let text = environment["PUSHER_PORT"] {
            guard let value = Int(text), (1...65535).contains(value) else {
                throw ValidationError("PUSHER_PORT '\(text)' is not a port number")
            }
            port = value
        }
        let defaults = ReconnectPolicy.default
        let policy = ReconnectPolicy(
            kind: reconnect ?? defaults.kind, minDelay: minDelay ?? defaults.minDelay,
            maxDelay: maxDelay ?? max(defaults.maxDelay, minDelay ?? 0),
            maxRetries: maxRetries ?? defaults.maxRetries)
        let connection = ConnectionConfiguration(
            useTLS: !noTLS, activityTimeout: activityTimeout, pongTimeout: pongTimeout ?? 30, reconnect: policy)
        let secret = self.secret ?? environment["PUSHER_APP_SECRET"]
        var authorizer: (any Authorizer)?
        if let endpoint = authEndpoint ?? environment["PUSHER_AUTH_ENDPOINT"] {
            // --user-id/--user-info travel as form parameters: development endpoints (pushtop serve's) read them.
            var parameters = authParams.compactMap(Self.splitParam)
            if let userID { parameters.append(("user_id", userID)) }
            if let userInfo { parameters.append(("user_info", userInfo)) }
            authorizer = EndpointAuthorizer(
                url: endpoint, headers: authHeaders.compactMap(Self.splitHeader), parameters: parameters)
        } else if let secret {
            authorizer = SecretAuthorizer(
                key: key, secret: secret, userID: userID ?? "user-\(UInt32.random(in: 1000...999_999))",
                userInfo: userInfo.flatMap(JSONValue.parseIfJSON))
        }
        return PusherClientOptions(
            key: key, cluster: cluster ?? environment["PUSHER_CLUSTER"] ?? "mt1", host: host, port: port,
            connection: connection, authorizer: authorizer, clientVersion: PushtopVersion.string)
    }
}
