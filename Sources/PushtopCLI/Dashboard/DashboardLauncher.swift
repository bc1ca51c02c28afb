import ArgumentParser
import Foundation
import PusherChannels
import PushtopDashboard

/// Runs the dashboard on a client: subscribes, connects, hands the client's event batches to the curses
/// loop, and disconnects when it ends.
enum DashboardLauncher {
    /// The dashboard's client reads a busy socket at most every 5 ms: the screen draws 30 times a second, and under
    /// a firehose one wake-up then carries dozens of frames instead of one.
    static let readCoalescing = 0.005

    /// One app to open: a client on a profile, its channels and what the dashboard knows of it.
    struct App {
        /// The profile's name (empty with one app).
        var label: String
        var client: PusherClient
        var channels: [String]
        var signIn = false
        var credentials: KnownCredentials?
    }

    static func run(
        client: PusherClient, channels: [String], theme: String?, signIn: Bool = false, record: String? = nil,
        credentials: KnownCredentials? = nil, console: ConsoleSources? = nil
    ) async throws -> Int32 {
        try await run(
            apps: [App(label: "", client: client, channels: channels, signIn: signIn, credentials: credentials)],
            theme: theme, record: record, console: console)
    }

    /// Runs the dashboard on one or several apps (one connection each); with `console`, its debug console reads
    /// those sources.
    static func run(
        apps launches: [App], theme: String?, record: String? = nil, nodes: NodeState? = nil,
        console: ConsoleSources? = nil
    ) async throws -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        var apps: [DashboardApp] = []
        var tasks: [Task<Void, Never>] = []
        defer { for task in tasks { task.cancel() } }
        // The console's feeds open first (for up to a second), so that it shows the dashboard's own connections too.
        var consoleFeed: ConsoleFeed?
        var consoleControl: ProxyFaultControl?
        if let console, !console.isEmpty {
            let feed = ConsoleFeed()
            let control = ProxyFaultControl(endpoints: console.feeds)
            consoleControl = control
            let sink = ConsoleReadiness(ConsoleNodeTap(feed, control: control), sources: console.feeds.count)
            tasks.append(Task { await console.run(into: sink) })
            await sink.waitUntilLive(timeout: .seconds(1))
            consoleFeed = feed
        }
        for launch in launches {
            let (app, started) = try await start(launch)
            apps.append(app)
            tasks += started
        }
        var options = DashboardOptions(theme: theme, environment: environment)
        options.recordPath = record
        options.recordEndpoint = apps[0].setup.endpoint
        options.recordChannels = launches.count == 1 ? launches[0].channels : []
        options.credentials = launches.count == 1 ? launches[0].credentials : nil
        options.api = launches.count == 1 ? apps[0].api : nil
        options.nodes = nodes
        options.console = consoleFeed
        options.consoleControl = consoleControl
        let exit = try await runDashboard(apps: apps, options: options)
        for task in tasks { task.cancel() }
        for launch in launches { await launch.client.shutdown() }
        return exit.exitStatus
    }

    /// Subscribes, connects and starts forwarding one app's events and frames.
    private static func start(_ launch: App) async throws -> (DashboardApp, [Task<Void, Never>]) {
        let client = launch.client
        // The HTTP API is on the WebSocket host for Pusher-compatible servers, api-CLUSTER.pusher.com for Pusher.
        var api: PusherAppAPI?
        if let credentials = launch.credentials, let appID = credentials.appID {
            let o = client.options
            let configuration =
                o.host == nil
                ? PusherAPIConfiguration.cluster(
                    o.cluster, appID: appID, key: credentials.key, secret: credentials.secret)
                : PusherAPIConfiguration(
                    appID: appID, key: credentials.key, secret: credentials.secret,
                    host: o.resolvedHost, port: o.port ?? (o.connection.useTLS ? 443 : 80), useTLS: o.connection.useTLS)
            api = PusherAppAPI(client: PusherAPIClient(configuration: configuration))
        }
        // Straight from the client's event loop into the dashboard's feed, one post per read burst (paced by
        // `readCoalescing`), and likewise the wire inspector's frames (and each event's exact frame for the detail
        // view); the screen takes them at its next frame. The feed is bounded and counts what it drops.
        let feed = DashboardFeed()
        client.onEventBatch { feed.post($0) }
        client.onFrames { feed.post(frames: $0) }
        for channel in launch.channels { try await client.subscribe(channel) }
        if launch.signIn { try await client.signIn() }
        await client.connect()
        // The connection pane shows the ping round-trip time, also on a busy connection that never idles.
        let pinger = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                await client.ping()
                try? await Task.sleep(for: .seconds(9))
            }
        }
        let backend = ClientDashboardBackend(client: client)
        let app = DashboardApp(
            setup: AppSetup(
                label: launch.label, endpoint: backend.connectionDescription,
                credentials: launch.credentials, hasAPI: api != nil), feed: feed, backend: backend,
            api: api, channels: launch.channels)
        return (app, [pinger])
    }

    /// Where the dashboard's logs go: `--log-file`, else `PUSHTOP_LOG_FILE`, else nowhere (never the screen).
    static func bootstrapLogging(_ logFile: String?) {
        if let path = logFile ?? ProcessInfo.processInfo.environment["PUSHTOP_LOG_FILE"] {
            PushtopLogging.bootstrap(.file(path))
        } else {
            PushtopLogging.bootstrap(.none)
        }
    }

    /// Refuses to start curses without a terminal (pipes, CI): a clear message instead of a broken screen.
    static func requireTerminal() throws {
        guard isatty(0) == 1, isatty(1) == 1 else {
            throw ValidationError("the dashboard needs a terminal (stdin and stdout); for scripts use 'pushtop watch'")
        }
    }
}
