import ArgumentParser
import Foundation
import PusherChannels
import PushtopConfig
import PushtopDashboard

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

    /// `--tls` / `--no-tls` (the last one given wins); neither: the profile's `tls`, else TLS on.
    @Flag(
        name: .customLong("tls"), inversion: .prefixedNo,
        help: "wss:// (the default) or, with --no-tls, plain ws://.")
    var tls: Bool?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "Also trust the certificate authorities in this PEM file for wss:// (a private CA).", valueName: "PEM"))
    var caFile: String?

    @Option(help: "Channel authorization endpoint (POST form socket_id, channel_name).")
    var authEndpoint: String?

    @Option(
        name: .customLong("auth-header"),
        help: ArgumentHelp("Extra header on auth requests (repeatable).", valueName: "'Name: value'"))
    var authHeaders: [String] = []

    @Option(
        name: .customLong("auth-param"),
        help: ArgumentHelp("Extra form parameter on auth requests (repeatable).", valueName: "name=value"))
    var authParams: [String] = []

    @Option(
        help: "Sign private/presence subscriptions locally with the app secret (development; env PUSHER_APP_SECRET).")
    var secret: String?

    @Option(
        name: .customLong("user-id"),
        help: "Presence user id when signing locally (default: random); sent as user_id to an auth endpoint.")
    var userID: String?

    @Option(name: .customLong("user-info"), help: "Presence user info (JSON) when signing locally.")
    var userInfo: String?

    @Option(
        name: .customLong("user-auth-endpoint"),
        help: ArgumentHelp(
            "User authentication endpoint for signing in (POST form socket_id; pusher-js's default path is /pusher/user-auth).",
            valueName: "URL"))
    var userAuthEndpoint: String?

    @Flag(
        name: .customLong("sign-in"),
        help:
            "Sign the user in (pusher.signin()) on every connection: through --user-auth-endpoint, or locally with --secret as --user-id."
    )
    var signIn = false

    @Option(
        name: .customLong("watchlist"),
        help: ArgumentHelp(
            "User ids the signed-in user watches (comma-separated) when signing locally; sent as watchlist to a user auth endpoint.",
            valueName: "IDS"))
    var watchlist: String?

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

    @Option(
        name: .customLong("profile"),
        help: ArgumentHelp(
            "Read options from this profile of the config file. The dashboard takes it more than once: one connection per profile (keys act on the selected app; A switches).",
            valueName: "NAME"))
    var profiles: [String] = []

    @OptionGroup var envFile: EnvFileOption

    /// The first `--profile` (commands other than the dashboard take one).
    var profile: String? { profiles.first }

    /// The options that name one app's identity: with several profiles each profile gives its own.
    var identityFlags: [String] {
        var given: [String] = []
        if key != nil { given.append("--key") }
        if cluster != nil { given.append("--cluster") }
        if host != nil { given.append("--host") }
        if port != nil { given.append("--port") }
        if secret != nil { given.append("--secret") }
        if authEndpoint != nil { given.append("--auth-endpoint") }
        return given
    }

    mutating func validate() throws {
        for (i, name) in profiles.enumerated() where profiles[..<i].contains(name) {
            throw ValidationError("--profile \(name) is given twice")
        }
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
        for (name, value) in [
            ("--activity-timeout", activityTimeout), ("--pong-timeout", pongTimeout),
            ("--min-delay", minDelay), ("--max-delay", maxDelay),
        ] {
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
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ValidationError("--ca-file '\(caFile)' is not a readable file")
        }
        if let authEndpoint, URL(string: authEndpoint)?.scheme?.hasPrefix("http") != true {
            throw ValidationError("--auth-endpoint '\(authEndpoint)' is not an http(s) URL")
        }
        if let userAuthEndpoint, URL(string: userAuthEndpoint)?.scheme?.hasPrefix("http") != true {
            throw ValidationError("--user-auth-endpoint '\(userAuthEndpoint)' is not an http(s) URL")
        }
        for id in watchlistIDs where !ChannelName.isValid(id) {
            throw ValidationError("--watchlist: '\(id)' is not a user id (A-Z a-z 0-9 _ - = @ , . ;)")
        }
    }

    /// Whether to sign the user in: `--sign-in`, or the profile's `sign_in = true`.
    func wantsSignIn(profile: Profile) -> Bool {
        signIn || (profile.signIn ?? false)
    }

    /// The ids of `--watchlist`.
    var watchlistIDs: [String] {
        (watchlist ?? "").split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
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

    /// The settings from the config file and the environment that the flags are laid over: the profile named
    /// by `--profile` (or `PUSHTOP_PROFILE`, or the file's `profile = "…"`), then `PUSHTOP_*` variables.
    func loadProfile(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Profile {
        guard profiles.count <= 1 else {
            throw ValidationError("--profile is given \(profiles.count) times: only the dashboard opens several apps")
        }
        do {
            let file = try ConfigFile.load(environment: environment)
            let name = profile ?? environment["PUSHTOP_PROFILE"].flatMap { $0.isEmpty ? nil : $0 }
            var base = Profile()
            if environment[EnvFileOption.marker] != nil, name == nil {
                // --env-file names the app: the config file's default profile stays out of it.
            } else if let file {
                base = try file.profile(named: name)
            } else if let name {
                let path = ConfigFile.path(environment: environment) ?? "~/.config/pushtop/config.toml"
                throw ValidationError("--profile \(name): no config file at \(path)")
            }
            return try Profile.fromEnvironment(environment).merged(over: base)
        } catch let error as ConfigError {
            throw ValidationError(error.description)
        }
    }

    /// The profiles to open at once: `--profile` given more than once, else (with no `--profile` and no
    /// `PUSHTOP_PROFILE`) the config file's `open = [...]` list (one or more). `nil` means one app, as
    /// ``loadProfile(environment:)`` reads it.
    func severalProfiles(environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> [(name: String, profile: Profile)]?
    {
        do {
            let file = try ConfigFile.load(environment: environment)
            let names: [String]
            if environment[EnvFileOption.marker] != nil {
                if profiles.count > 1 { throw ValidationError("--env-file cannot be combined with several profiles") }
                return nil
            } else if profiles.count > 1 {
                names = profiles
            } else if profiles.isEmpty, (environment["PUSHTOP_PROFILE"] ?? "").isEmpty, let file, !file.open.isEmpty {
                names = file.open
            } else {
                return nil
            }
            guard let file else {
                let path = ConfigFile.path(environment: environment) ?? "~/.config/pushtop/config.toml"
                throw ValidationError("--profile \(names.joined(separator: ", ")): no config file at \(path)")
            }
            if !identityFlags.isEmpty {
                throw ValidationError(
                    "\(identityFlags.joined(separator: ", ")) cannot be combined with several profiles: each profile gives its own"
                )
            }
            // PUSHTOP_* variables other than the theme would make every app the same one.
            var shared = Profile()
            shared.theme = try Profile.fromEnvironment(environment).theme
            return try names.map { name in (name, shared.merged(over: try file.profile(named: name))) }
        } catch let error as ConfigError {
            throw ValidationError(error.description)
        }
    }

    /// The environment without the variables that name one app (`PUSHER_APP_KEY`, `PUSHER_HOST`, ...): with
    /// several profiles each profile gives its own.
    static func withoutAppIdentity(_ environment: [String: String]) -> [String: String] {
        environment.filter {
            ![
                "PUSHER_APP_KEY", "PUSHER_CLUSTER", "PUSHER_HOST", "PUSHER_PORT", "PUSHER_APP_SECRET",
                "PUSHER_AUTH_ENDPOINT", "PUSHER_APP_ID",
            ].contains($0.key)
        }
    }

    /// Whether an app is configured anywhere (flags, environment, profile).
    func hasKey(environment: [String: String], profile: Profile) -> Bool {
        (key ?? environment["PUSHER_APP_KEY"] ?? profile.key).map { !$0.isEmpty } ?? false
    }

    /// Client options: flags first, then `PUSHER_*` environment variables, then the profile, then defaults.
    func clientOptions(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        profile: Profile = Profile()
    ) throws -> PusherClientOptions {
        func env(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if caFile == nil, let file = profile.caFile, !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("ca_file '\(file)' (config file) is not a readable file")
        }
        guard let key = key ?? env("PUSHER_APP_KEY") ?? profile.key, !key.isEmpty else {
            throw ValidationError("no app key: give --key KEY (or set PUSHER_APP_KEY, or use a --profile)")
        }
        let host = host ?? env("PUSHER_HOST") ?? profile.host
        var port = self.port
        if port == nil, let text = env("PUSHER_PORT") {
            guard let value = Int(text), (1...65535).contains(value) else {
                throw ValidationError("PUSHER_PORT '\(text)' is not a port number")
            }
            port = value
        }
        port = port ?? profile.port
        let policy = try reconnectPolicy(profile: profile)
        let useTLS = tls ?? profile.tls ?? true
        let connection = ConnectionConfiguration(
            useTLS: useTLS, activityTimeout: activityTimeout ?? profile.activityTimeout,
            pongTimeout: pongTimeout ?? profile.pongTimeout ?? 30, reconnect: policy)
        let secret = self.secret ?? env("PUSHER_APP_SECRET") ?? profile.secret
        // One identity for presence channels and sign-in alike.
        let userID =
            self.userID ?? profile.userID ?? (secret != nil ? "user-\(UInt32.random(in: 1000...999_999))" : nil)
        let userInfo = self.userInfo.flatMap(JSONValue.parseIfJSON) ?? profile.userInfo
        let identity = Identity(key: key, secret: secret, userID: userID, userInfo: userInfo)
        let authorizer = channelAuthorizer(
            endpoint: authEndpoint ?? env("PUSHER_AUTH_ENDPOINT") ?? profile.authEndpoint, identity: identity,
            profile: profile)
        let userAuthenticator = signInAuthenticator(identity: identity, profile: profile)
        if wantsSignIn(profile: profile), userAuthenticator == nil {
            throw ValidationError("--sign-in needs --user-auth-endpoint URL, or --secret to sign locally")
        }
        return PusherClientOptions(
            key: key, cluster: cluster ?? env("PUSHER_CLUSTER") ?? profile.cluster ?? "mt1", host: host, port: port,
            connection: connection, authorizer: authorizer, caFile: caFile ?? profile.caFile,
            clientVersion: PushtopVersion.string,
            userAuthenticator: userAuthenticator)
    }

    /// Who the client authorizes and signs in as: what ``clientOptions(environment:profile:)`` has resolved.
    private struct Identity {
        var key: String
        var secret: String?
        var userID: String?
        var userInfo: JSONValue?
    }

    /// The reconnect policy: flags, then the profile, then the commands' defaults.
    private func reconnectPolicy(profile: Profile) throws -> ReconnectPolicy {
        // The commands give up after 6 failed attempts (docs/options.md); the library's default never does.
        let defaults = ReconnectPolicy(maxRetries: 6)
        let kind =
            try reconnect ?? profile.reconnect.map { name in
                guard let kind = ReconnectPolicy.Kind(rawValue: name) else {
                    throw ValidationError("reconnect '\(name)' is not exponential, linear or none")
                }
                return kind
            } ?? defaults.kind
        let minDelay = self.minDelay ?? profile.minDelay ?? defaults.minDelay
        let maxDelay = self.maxDelay ?? profile.maxDelay ?? max(defaults.maxDelay, minDelay)
        guard minDelay <= maxDelay else {
            throw ValidationError("the minimum reconnect delay (\(minDelay)) is larger than the maximum (\(maxDelay))")
        }
        return ReconnectPolicy(
            kind: kind, minDelay: minDelay, maxDelay: maxDelay,
            maxRetries: maxRetries ?? profile.maxRetries ?? defaults.maxRetries)
    }

    /// Channel authorization: through `endpoint` when there is one, else signed with the secret, else none.
    private func channelAuthorizer(endpoint: String?, identity: Identity, profile: Profile) -> (any Authorizer)? {
        if let endpoint {
            // --user-id/--user-info travel as form parameters: development endpoints (pushtop serve's) read them.
            let parameters = endpointParameters(identity: identity, profile: profile)
            return EndpointAuthorizer(url: endpoint, headers: endpointHeaders(profile: profile), parameters: parameters)
        } else if let secret = identity.secret {
            return SecretAuthorizer(
                key: identity.key, secret: secret, userID: identity.userID ?? "user", userInfo: identity.userInfo)
        }
        return nil
    }

    /// User authentication (sign-in): through the user-auth endpoint when there is one, else signed with the
    /// secret, else none.
    private func signInAuthenticator(identity: Identity, profile: Profile) -> (any UserAuthenticator)? {
        let watchlistIDs = watchlist != nil ? self.watchlistIDs : (profile.watchlist ?? [])
        if let endpoint = userAuthEndpoint ?? profile.userAuthEndpoint {
            // The same extra headers and parameters as channel authorization, plus the identity for development
            // endpoints (pushtop serve's /pusher/user-auth reads user_id, user_info and watchlist).
            var parameters = endpointParameters(identity: identity, profile: profile)
            if watchlist != nil || profile.watchlist != nil {
                parameters.append(("watchlist", watchlistIDs.joined(separator: ",")))
            }
            return EndpointUserAuthenticator(
                url: endpoint, headers: endpointHeaders(profile: profile), parameters: parameters)
        } else if let secret = identity.secret {
            return SecretUserAuthenticator(
                key: identity.key, secret: secret, userID: identity.userID ?? "user", userInfo: identity.userInfo,
                watchlist: watchlistIDs)
        }
        return nil
    }

    /// The form parameters sent to an auth endpoint: the profile's (by name), the flags', then the identity.
    private func endpointParameters(identity: Identity, profile: Profile) -> [(name: String, value: String)] {
        var parameters = (profile.authParams ?? [:]).sorted { $0.key < $1.key }.map {
            (name: $0.key, value: $0.value)
        }
        parameters += authParams.compactMap(Self.splitParam)
        if let userID = identity.userID { parameters.append(("user_id", userID)) }
        if let userInfo = identity.userInfo { parameters.append(("user_info", userInfo.jsonString)) }
        return parameters
    }

    /// The headers sent to an auth endpoint: the profile's (by name), then the flags'.
    private func endpointHeaders(profile: Profile) -> [(name: String, value: String)] {
        var headers = (profile.authHeaders ?? [:]).sorted { $0.key < $1.key }.map {
            (name: $0.key, value: $0.value)
        }
        headers += authHeaders.compactMap(Self.splitHeader)
        return headers
    }
}
