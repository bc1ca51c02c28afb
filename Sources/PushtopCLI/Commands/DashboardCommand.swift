import ArgumentParser
import Foundation
import PusherChannels
import PushtopConfig
import PushtopDashboard

/// `pushtop [CONNECTION OPTIONS] [CHANNEL...]`: the dashboard on a real app; with no app configured, the demo.
struct DashboardCommand: AsyncParsableCommand, NodeOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "The terminal dashboard (the default command). With no app configured it runs the demo.",
        discussion:
            "Keys: Tab/1-4 focus, s subscribe, u unsubscribe, t client event, / filter, p pause, A next app (several --profile), ? help, q quit."
    )

    @OptionGroup var connection: ConnectionOptions

    @OptionGroup var display: DashboardDisplayOptions

    @Option(
        name: .customLong("app-id"),
        help:
            "The app id (env PUSHER_APP_ID): with --secret, the channel browser and the presence check use the HTTP API."
    )
    var appID: String?

    @OptionGroup var nodes: NodeOption<DashboardCommand>
    static let nodeHelp =
        "A node of the app behind a load balancer (repeatable): one connection per node, a row each; with the secret and app id, a canary every few seconds and the nodes' presence rosters compared."

    @Option(
        name: .customLong("canary-interval"),
        help: ArgumentHelp("Seconds between cross-node canaries (with --node).", valueName: "S"))
    var canaryInterval: Double = 5

    @Argument(help: "Channels to subscribe to.")
    var channels: [String] = []

    mutating func validate() throws {
        guard canaryInterval >= 0.5, canaryInterval.isFinite else {
            throw ValidationError("--canary-interval must be 0.5 s or more")
        }
        for channel in channels {
            do { try ChannelName.validate(channel) } catch { throw ValidationError("channel '\(channel)': \(error)") }
        }
    }

    func run() async throws {
        let (environment, _) = try connection.resolvedEnvironment()
        if let several = try connection.severalProfiles(environment: environment) {
            try await runSeveral(several, environment: environment)
            return
        }
        let profile = try connection.loadProfile(environment: environment)
        guard connection.hasKey(environment: environment, profile: profile) else {
            // Nothing configured: show something live at once.
            try await DemoCommand.parse(display.arguments).run()
            return
        }
        var options = try connection.clientOptions(environment: environment, profile: profile)
        options.transport.readCoalescing = DashboardLauncher.readCoalescing
        let addresses = nodes.addresses(or: profile)
        if !addresses.isEmpty {
            let secret =
                connection.secret ?? environment["PUSHER_APP_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
                ?? profile.secret
            let appID = self.appID ?? environment["PUSHER_APP_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? profile.appID
            let credentials = secret.map { KnownCredentials(key: options.key, secret: $0, appID: appID) }
            let launch = try NodesLauncher(
                addresses: addresses, options: options,
                channels: channels + (profile.channels ?? []), signIn: connection.wantsSignIn(profile: profile),
                credentials: credentials, interval: canaryInterval)
            try DashboardLauncher.requireTerminal()
            DashboardLauncher.bootstrapLogging(display.logFile)
            let status = try await DashboardLauncher.run(
                apps: launch.apps, theme: display.theme ?? environment["PUSHTOP_THEME"] ?? profile.theme,
                record: display.record, nodes: launch.state,
                console: .dashboard(
                    nodes: addresses, options: options, credentials: credentials,
                    webhookListen: display.webhookAddress))
            if status != 0 { throw ExitCode(status) }
            return
        }
        try DashboardLauncher.requireTerminal()
        DashboardLauncher.bootstrapLogging(display.logFile)
        let client = PusherClient(options: options)
        let secret =
            connection.secret ?? environment["PUSHER_APP_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
            ?? profile.secret
        let credentials = secret.map {
            KnownCredentials(
                key: options.key, secret: $0,
                appID: appID ?? environment["PUSHER_APP_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? profile.appID)
        }
        let status = try await DashboardLauncher.run(
            client: client, channels: channels + (profile.channels ?? []),
            theme: display.theme ?? environment["PUSHTOP_THEME"] ?? profile.theme,
            signIn: connection.wantsSignIn(profile: profile), record: display.record, credentials: credentials,
            console: .dashboard(
                nodes: ConsoleSources.node(of: options), options: options, credentials: credentials,
                webhookListen: display.webhookAddress))
        if status != 0 { throw ExitCode(status) }
    }

    /// Several profiles (`--profile a --profile b`, or the config file's `open`): one connection each.
    private func runSeveral(_ profiles: [(name: String, profile: Profile)], environment: [String: String]) async throws
    {
        if appID != nil {
            throw ValidationError("--app-id cannot be combined with several profiles: give app_id in each")
        }
        let env = ConnectionOptions.withoutAppIdentity(environment)
        var apps: [DashboardLauncher.App] = []
        for (name, profile) in profiles {
            guard profile.key.map({ !$0.isEmpty }) ?? false else {
                throw ValidationError("profile \(name) has no key")
            }
            var options: PusherClientOptions
            do {
                options = try connection.clientOptions(environment: env, profile: profile)
            } catch let error as ValidationError {
                throw ValidationError("profile \(name): \(error.message)")
            }
            options.transport.readCoalescing = DashboardLauncher.readCoalescing
            apps.append(
                DashboardLauncher.App(
                    label: name, client: PusherClient(options: options),
                    channels: channels + (profile.channels ?? []), signIn: connection.wantsSignIn(profile: profile),
                    credentials: profile.secret.map {
                        KnownCredentials(key: options.key, secret: $0, appID: profile.appID)
                    }))
        }
        try DashboardLauncher.requireTerminal()
        DashboardLauncher.bootstrapLogging(display.logFile)
        let theme = display.theme ?? environment["PUSHTOP_THEME"] ?? profiles.compactMap(\.profile.theme).first
        // Several apps: the console has one app's rows; only the webhook receiver (which tells apps by key) fits.
        let status = try await DashboardLauncher.run(
            apps: apps, theme: theme, record: display.record,
            console: display.webhookAddress.map {
                ConsoleSources(
                    webhooks: WebhookReceiverSettings(
                        host: $0.host, port: $0.port,
                        credentials: apps.compactMap(\.credentials).map {
                            WebhookCredential(appID: $0.appID, key: $0.key, secret: $0.secret)
                        }))
            })
        if status != 0 { throw ExitCode(status) }
    }
}
