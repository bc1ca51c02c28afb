import Dispatch
import PusherProtocol

/// The dashboard's loop: one loop on the main actor does all curses calls. It wakes when anything arrives (keys, a
/// signal, the frame clock, an answer to the dashboard's own requests), takes everything waiting (the inbox and the
/// apps' feeds), reduces it, performs the effects (`DashboardRunner+Effects`), and draws at most `framesPerSecond`
/// times a second and only when something changed.
@MainActor
final class DashboardRunner {
    /// Each app's feed, backend and HTTP API, by app index.
    let feeds: [DashboardFeed]
    let backends: [any DashboardBackend]
    let apis: [(any AppAPI)?]
    let options: DashboardOptions
    let inbox = Inbox()
    let input: TerminalInput
    var catalog: ThemeCatalog
    var currentTheme: Theme
    var state: DashboardState
    let screen: CursesScreen
    var recorder: SessionRecorder
    /// Set when replaying a recording.
    var player: ReplayPlayer?
    var lastReplayClock = 0.0
    private var lastDraw = 0.0
    /// When the loop started taking the feeds.
    private var openedAt = 0.0

    init(apps: [DashboardApp], options: DashboardOptions) {
        feeds = apps.map(\.feed)
        backends = apps.map(\.backend)
        apis = apps.map(\.api)
        self.options = options
        input = TerminalInput(inbox: inbox)
        recorder = SessionRecorder(options: options, apps: apps)
        catalog = ThemeCatalog(environment: options.environment)
        let (theme, warning) = catalog.resolve(options.theme, environment: options.environment)
        catalog.include(theme)
        let noColor = !(options.environment["NO_COLOR"] ?? "").isEmpty
        screen = CursesScreen(colorAllowed: !noColor || options.theme != nil)
        var names = catalog.themes.map(\.name)
        if !names.contains(theme.name) { names.append(theme.name) }
        state = DashboardState(
            size: Size(rows: 24, columns: 80), now: DashboardClock.now(),
            configuration: .init(
                logCapacity: options.logCapacity, utcOffset: DashboardClock.utcOffset(),
                themeNames: names, frameCapacity: options.frameCapacity, credentials: options.credentials,
                hasAPI: options.api != nil))
        state.themeIndex = names.firstIndex(of: theme.name) ?? 0
        if apps.count > 1 {
            state.setApps(apps.map(\.setup))
            if let nodes = options.nodes { state.setNodes(nodes) }
        } else {
            state.setEndpoint(apps[0].backend.connectionDescription)
        }
        let problems = catalog.warnings + (warning.map { [$0] } ?? [])
        if !problems.isEmpty { state.setStatus(problems.joined(separator: "; "), isError: true) }
        currentTheme = theme
    }

    /// Runs until `q` or a signal; the terminal is restored on every exit path.
    func run() async -> DashboardExit {
        TerminalGuard.install()
        input.installSignalSources()  // before initscr, so curses does not take SIGWINCH
        screen.start(mouse: options.mouse)
        defer {
            screen.stop()
            input.stop()
        }
        prepareSession()
        defer { recorder.close() }
        // What the clients posted before now reaches the dashboard now (after a recording's start).
        openedAt = DashboardClock.now()
        let ticker = startFrameClock()
        defer { ticker.cancel() }

        screen.draw(state)
        state.needsDraw = false
        for await _ in inbox.wakeups {
            let p = inbox.take()
            if let sig = p.signal { return .signal(sig) }
            for effect in reduceWakeup(p) {
                if case .quit = effect { return .quit }
                perform(effect)
            }
            drawIfDue(keyPressed: p.inputReady)
        }
        return .quit
    }

    /// Before the loop: the theme, a replay's first state, the screen's size, stdin, and `--record`'s recording.
    private func prepareSession() {
        screen.apply(currentTheme)
        if let player {
            let theme = state.themeIndex
            state = player.initialState(size: screen.size, configuration: state.configuration)
            state.themeIndex = theme
            lastReplayClock = DashboardClock.now()
        }
        _ = state.reduce(.resize(screen.size))
        input.watchStdin()
        if options.recordPath != nil { toggleRecording() }
    }

    /// The frame clock, on the main queue with the loop: one wake-up per frame, no task hop.
    private func startFrameClock() -> any DispatchSourceTimer {
        let inbox = self.inbox
        let ticker = DispatchSource.makeTimerSource(queue: .main)
        let interval = 1_000_000_000 / max(1, options.framesPerSecond)
        ticker.schedule(
            deadline: .now() + .nanoseconds(interval), repeating: .nanoseconds(interval),
            leeway: .milliseconds(1))
        ticker.setEventHandler { inbox.update { $0.tick = true } }
        ticker.resume()
        return ticker
    }

    /// Reduces what one wake-up brought: a resize, the feeds, the inbox's events, the keys and mouse waiting on
    /// stdin (up to a quit), the frame clock. Returns the effects in that order.
    private func reduceWakeup(_ p: Inbox.Pending) -> [Effect] {
        var effects: [Effect] = []
        if p.resized {
            effects += state.reduce(.resize(screen.handleResize()))
        }
        effects += takeFeeds()
        for event in p.uiEvents {
            effects += state.reduce(event)
            if let item = RecordedAnswer.item(event, time: DashboardClock.now()) { record([item]) }
        }
        if p.inputReady {
            for event in screen.readInput() {
                effects += state.reduce(event)
                if effects.contains(.quit) { break }
            }
            input.resume()
        }
        if p.tick {
            if player != nil {
                let now = DashboardClock.now()
                player!.advance(wallSeconds: now - lastReplayClock, into: &state)
                lastReplayClock = now
            } else {
                effects += state.reduce(.tick(now: DashboardClock.now()))
            }
        }
        return effects
    }

    /// Draws at most once per frame interval (a tick comes soon to draw what is left), except that a key
    /// is answered at once.
    private func drawIfDue(keyPressed: Bool) {
        let now = DashboardClock.now()
        if state.needsDraw,
            keyPressed || now - lastDraw >= 1.0 / Double(max(1, options.framesPerSecond)) * 0.9
        {
            screen.draw(state)
            state.needsDraw = false
            lastDraw = now
        }
    }

    /// Reduces what the apps' clients posted: the drop count, each read burst at the time it arrived (it waited for
    /// this frame) in arrival order across the apps, as the log and recordings show, then each app's frames.
    private func takeFeeds() -> [Effect] {
        var effects: [Effect] = []
        let taken = feeds.map { $0.take() }
        let dropped = taken.reduce(0) { $0 + $1.dropped }
        if dropped > 0 { effects += state.reduce(.dropped(dropped)) }
        var bursts = taken.enumerated().flatMap { app, p in p.bursts.map { (app: app, burst: $0) } }
        if taken.count > 1 { bursts.sort { $0.burst.time < $1.burst.time } }
        for (app, burst) in bursts {
            let time = player?.clock ?? max(burst.time, openedAt)
            effects += state.reduce(.tick(now: time))
            effects += state.reduce(.client(burst.events, app: app))
            if recorder.isRecording {
                record(burst.events.map { .tagged(.client(time: time, event: $0), app: app) })
            }
        }
        for (app, p) in taken.enumerated() where p.framesPosted {
            effects += state.reduce(.frames(p.frames, droppedUpstream: p.framesDroppedSoFar, app: app))
            guard recorder.isRecording else { continue }
            let dropped: [RecordingItem] =
                p.framesDroppedSoFar > 0
                ? [.framesDropped(time: DashboardClock.now(), total: p.framesDroppedSoFar)] : []
            record((p.frames.map(RecordingItem.frame) + dropped).map { .tagged($0, app: app) })
        }
        // The debug console's rows, like the feeds: whatever its sources posted since the last frame.
        if let update = options.console?.takeUpdate() {
            if recorder.isRecording, !update.rows.isEmpty {
                let time = DashboardClock.now()
                record(update.rows.map { .console(time: time, row: $0) })
            }
            effects += state.reduce(.console(update))
        }
        return effects
    }

    /// Writes items to the recording, if one is open.
    func record(_ items: [RecordingItem]) {
        recorder.record(items, state: &state)
    }

    /// `r` (and `--record`): starts recording, or stops.
    func toggleRecording() {
        if !recorder.isRecording, player != nil {
            state.setStatus("a replay cannot be recorded", isError: true)
            return
        }
        recorder.toggle(state: &state)
    }
}
