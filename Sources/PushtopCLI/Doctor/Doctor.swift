import Foundation
import PusherChannels

/// `pushtop doctor`'s checks, in the order a connection needs them: DNS, TCP, TLS, the WebSocket upgrade,
/// `pusher:connection_established`, an auth round trip on a private channel, the HTTP API. Stops at the first
/// failure (what follows could not work either).
struct Doctor {
    var options: PusherClientOptions
    /// The app id, for the HTTP API check (skipped without it or without a secret).
    var appID: String?
    /// The app secret, for the HTTP API check.
    var secret: String?
    var timeout: Double

    /// Runs the checks, handing each result to `report` as it completes; returns them all.
    func run(report: (DoctorCheck) -> Void) async -> [DoctorCheck] {
        var results: [DoctorCheck] = []
        func add(_ check: DoctorCheck) -> Bool {
            results.append(check)
            report(check)
            return !check.failed
        }
        let host = options.resolvedHost
        let port = options.port ?? (options.connection.useTLS ? 443 : 80)
        guard await checkDNS(host, add) else { return results }
        guard await checkTCP(host: host, port: port, add) else { return results }
        guard await checkTLS(host: host, port: port, add) else { return results }
        guard await checkHandshake(target: "\(host):\(port)", add) else { return results }
        guard await checkAuth(add) else { return results }
        _ = await checkHTTPAPI(add)
        return results
    }

    /// Resolves the host.
    private func checkDNS(_ host: String, _ add: (DoctorCheck) -> Bool) async -> Bool {
        switch await NetworkProbe.resolve(host) {
        case .success(let addresses):
            return add(.passed("DNS", "\(host) resolves to \(addresses.prefix(3).joined(separator: ", "))"))
        case .failure(let error):
            _ = add(
                .failed(
                    "DNS", "\(host) does not resolve: \(error)",
                    fix: options.host == nil
                        ? "check --cluster (\(options.cluster)): Pusher's hosts are ws-CLUSTER.pusher.com"
                        : "check the spelling of --host, or your DNS (try: getent hosts \(host))"))
            return false
        }
    }

    /// Opens a TCP connection to the port.
    private func checkTCP(host: String, port: Int, _ add: (DoctorCheck) -> Bool) async -> Bool {
        let target = "\(host):\(port)"
        switch await NetworkProbe.connect(host: host, port: port, tlsServerName: nil, timeout: timeout) {
        case .success:
            return add(.passed("TCP", "connected to \(target)"))
        case .failure(let error):
            _ = add(
                .failed(
                    "TCP", "cannot connect to \(target): \(error)",
                    fix: error.description == "connection refused"
                        ? "nothing listens on \(target): start the server (e.g. pushtop serve --port \(port)) or fix --port"
                        : "is \(target) reachable from here (firewall, VPN, proxy)? Check --host and --port"))
            return false
        }
    }

    /// Completes a TLS handshake, unless the connection is plain (`--no-tls`: skipped).
    private func checkTLS(host: String, port: Int, _ add: (DoctorCheck) -> Bool) async -> Bool {
        guard options.connection.useTLS else {
            _ = add(.skipped("TLS", "--no-tls: plain ws://"))
            return true
        }
        let target = "\(host):\(port)"
        switch await NetworkProbe.connect(host: host, port: port, tlsServerName: host, timeout: timeout) {
        case .success:
            return add(.passed("TLS", "handshake with \(host) completed, certificate valid"))
        case .failure(let error):
            _ = add(
                .failed(
                    "TLS", "TLS handshake with \(target) failed: \(error)",
                    fix:
                        "if the server speaks plain ws:// on this port, add --no-tls; otherwise check its certificate for \(host)"
                ))
            return false
        }
    }

    /// Upgrades to a WebSocket at `/app/KEY` and waits for `pusher:connection_established`.
    private func checkHandshake(target: String, _ add: (DoctorCheck) -> Bool) async -> Bool {
        let url = options.url(useTLS: options.connection.useTLS)
        switch await PusherHandshakeProbe.run(url: url, timeout: timeout) {
        case .upgradeFailed(let reason):
            _ = add(
                .failed(
                    "WebSocket", "upgrade to \(url.prefix { $0 != "?" }) failed: \(reason)",
                    fix:
                        "\(target) is not a Pusher WebSocket endpoint: check --host and --port (the WebSocket port, not a web app's)"
                ))
            return false
        case .established(let socketID, let activityTimeout):
            _ = add(.passed("WebSocket", "upgraded at /app/\(options.key)"))
            let timeoutText = activityTimeout.map { ", activity timeout \($0) s" } ?? ""
            return add(.passed("Pusher", "connection_established, socket id \(socketID)\(timeoutText)"))
        case .refused(let code, let message):
            _ = add(.passed("WebSocket", "upgraded at /app/\(options.key)"))
            _ = add(
                .failed(
                    "Pusher", "refused\(code.map { " with \($0)" } ?? ""): \(message)",
                    fix: Self.fix(forCloseCode: code)))
            return false
        case .silent(let reason):
            _ = add(.passed("WebSocket", "upgraded at /app/\(options.key)"))
            _ = add(
                .failed(
                    "Pusher", "no connection_established: \(reason)",
                    fix:
                        "the server speaks WebSocket but not the Pusher protocol at /app/KEY: is this a Pusher-compatible server?"
                ))
            return false
        }
    }

    /// Subscribes to a private channel with the configured authorizer and waits for the server's verdict.
    private func checkAuth(_ add: (DoctorCheck) -> Bool) async -> Bool {
        guard let authorizer = options.authorizer else {
            return add(.skipped("auth", "no --auth-endpoint or --secret: private and presence channels not checked"))
        }
        let via = (authorizer as? EndpointAuthorizer).map { "endpoint \($0.endpoint.url)" } ?? "the local secret"
        var clientOptions = options
        clientOptions.connection.reconnect = ReconnectPolicy(kind: .none)
        let client = PusherClient(options: clientOptions)
        let events = client.events()
        let channel = "private-pushtop-doctor"
        await client.connect()
        do {
            try await client.subscribe(channel)
        } catch {
            return add(.failed("auth", "cannot subscribe: \(error)", fix: "report this: the channel name is valid"))
        }
        let verdict = await firstVerdict(events, channel: channel)
        await client.shutdown()
        switch verdict {
        case .subscribed:
            return add(.passed("auth", "subscribed to \(channel), signed by \(via)"))
        case .refused(let status, let message):
            let fix: String
            if authorizer is EndpointAuthorizer {
                switch status {
                case 401?, 403?:
                    fix =
                        "the endpoint refused this client: add the session or token it expects (--auth-header 'Authorization: Bearer …', --auth-param)"
                case nil: fix = "the endpoint could not be reached or answered badly: check --auth-endpoint"
                default: fix = "the endpoint answered \(status!): check --auth-endpoint and its logs"
                }
            } else {
                fix =
                    "the server rejected the signature: --secret must be this app's secret (the one paired with --key)"
            }
            return add(
                .failed("auth", "\(channel) refused\(status.map { " (HTTP \($0))" } ?? ""): \(message)", fix: fix))
        case .timedOut:
            return add(
                .failed(
                    "auth", "no answer to the subscription within \(Int(timeout)) s",
                    fix: "the server did not confirm the subscription: check its logs"))
        }
    }

    private enum Verdict { case subscribed, refused(status: Int?, message: String), timedOut }

    private func firstVerdict(_ events: AsyncStream<ClientEvent>, channel: String) async -> Verdict {
        let timeout = self.timeout
        return await withTaskGroup(of: Verdict?.self) { group in
            group.addTask {
                for await event in events {
                    switch event {
                    case .subscribed(let name, _) where name == channel: return .subscribed
                    case .subscriptionError(let name, let status, let message) where name == channel:
                        return .refused(status: status, message: message)
                    case .error(let code?, let message):
                        return .refused(status: nil, message: "pusher:error \(code): \(message)")
                    case .state(let change) where change.current == .failed:
                        return .refused(status: nil, message: "the connection failed")
                    default: continue
                    }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return .timedOut
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .timedOut
        }
    }

    /// Calls `GET /apps/ID/channels`, signed with the secret.
    private func checkHTTPAPI(_ add: (DoctorCheck) -> Bool) async -> Bool {
        guard let secret, let appID else {
            return add(.skipped("HTTP API", "needs --app-id and --secret (env PUSHER_APP_ID, PUSHER_APP_SECRET)"))
        }
        let configuration: PusherAPIConfiguration
        if options.host == nil {
            configuration = .cluster(options.cluster, appID: appID, key: options.key, secret: secret)
        } else {
            configuration = PusherAPIConfiguration(
                appID: appID, key: options.key, secret: secret, host: options.resolvedHost,
                port: options.port ?? (options.connection.useTLS ? 443 : 80), useTLS: options.connection.useTLS,
                timeout: timeout)
        }
        let api = PusherAPIClient(configuration: configuration)
        do {
            let response = try await api.channels()
            let count = response.json?["channels"]?.objectValue?.count
            return add(
                .passed(
                    "HTTP API",
                    "GET \(configuration.baseURL)/apps/\(appID)/channels: \(response.status)"
                        + (count.map { ", \($0) occupied channel\($0 == 1 ? "" : "s")" } ?? "")))
        } catch {
            let fix: String
            switch error {
            case .status(let code, _) where code == 401 || code == 403:
                fix = "the API rejected the signature: --secret and --app-id must be this app's (the pair of --key)"
            case .status(404, _):
                fix = "no app \(appID) here: check --app-id"
            case .status:
                fix = "check the server's logs"
            case .transport:
                fix =
                    "the API is unreachable at \(configuration.baseURL): on Pusher it is api-CLUSTER.pusher.com; others serve it on the WebSocket port"
            case .invalidRequest:
                fix = "report this: the request is built by pushtop"
            }
            return add(.failed("HTTP API", "GET /apps/\(appID)/channels: \(error)", fix: fix))
        }
    }

    /// What to try for a close code the server refused the connection with.
    static func fix(forCloseCode code: Int?) -> String {
        switch code {
        case 4001?:
            return "the server does not know this app key: check --key (and --cluster: a key belongs to one cluster)"
        case 4003?: return "the app is disabled: enable it in the dashboard of your Pusher account or server"
        case 4004?: return "the app is over its connection quota: close other connections or raise the plan's limit"
        case 4005?: return "the path is wrong: use the server's /app/KEY endpoint"
        case 4006?: return "the server refused the protocol version: it needs a newer Pusher-protocol server"
        case 4007?: return "the server does not support protocol 7: upgrade the server"
        case 4009?: return "the connection is unauthorized: check --key and the server's app settings"
        case let code? where (4100...4199).contains(code): return "the server is over capacity: try again later"
        default: return "see the server's message above; the server refused this connection"
        }
    }
}
