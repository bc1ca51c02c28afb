import PusherProtocol

/// Runs the dashboard in the terminal until `q`, Ctrl-C, SIGINT or SIGTERM, on one app.
///
/// One loop on the main actor does all curses calls: it wakes when anything arrives (client events,
/// stdin, a signal, the clock), drains everything, reduces it, and draws at most `framesPerSecond` times a
/// second and only when something changed. The terminal is restored on every exit path.
///
/// - Parameters:
///   - feed: where the client posts its event batches and frames (``DashboardFeed``).
///   - backend: where subscribe/unsubscribe/trigger/connect/disconnect go.
///   - options: theme, log size, save folder, frame rate.
/// - Returns: why it stopped (`exitStatus` gives the process exit code).
@MainActor
public func runDashboard(feed: DashboardFeed, backend: any DashboardBackend, options: DashboardOptions) async throws
    -> DashboardExit
{
    try await runDashboard(apps: [.only(feed: feed, backend: backend, options: options)], options: options)
}

/// Runs the dashboard on several apps at once (`pushtop --profile a --profile b`): one connection each; the
/// panes group by app, the log marks each entry's app, and keys act on the selected app (`A` selects the
/// next). With one app it is the same as ``runDashboard(feed:backend:options:)``.
@MainActor
public func runDashboard(apps: [DashboardApp], options: DashboardOptions) async throws -> DashboardExit {
    precondition(!apps.isEmpty, "runDashboard needs an app")
    let runner = DashboardRunner(apps: apps, options: options)
    return await runner.run()
}

/// Runs the dashboard on a recording (`pushtop replay`): no network; the recorded events drive the same
/// `reduce` as live, paced by the recorded times at the chosen speed, with play/pause, step, speed and jump.
@MainActor
public func runReplay(_ player: ReplayPlayer, options: DashboardOptions) async throws -> DashboardExit {
    let runner = DashboardRunner(
        apps: [.only(feed: DashboardFeed(), backend: ReplayBackend(), options: options)],
        options: options)
    runner.player = player
    return await runner.run()
}

extension DashboardApp {
    /// The one app of ``runDashboard(feed:backend:options:)`` and ``runReplay(_:options:)``: what the dashboard
    /// shows of it comes from the options.
    static func only(feed: DashboardFeed, backend: any DashboardBackend, options: DashboardOptions) -> DashboardApp {
        DashboardApp(
            setup: AppSetup(
                label: "", endpoint: backend.connectionDescription, credentials: options.credentials,
                hasAPI: options.api != nil), feed: feed, backend: backend, api: options.api,
            channels: options.recordChannels)
    }
}
