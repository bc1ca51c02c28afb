import Dispatch
import PusherProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the dashboard in the terminal until `q`, Ctrl-C, SIGINT or SIGTERM.
///
/// One loop on the main actor does all curses calls: it wakes when anything arrives (client events,
/// stdin, a signal, the clock), drains everything, reduces it, and draws at most `framesPerSecond` times a
/// second and only when something changed. The terminal is restored on every exit path.
///
/// - Parameters:
///   - events: the client's events, in batches.
///   - backend: where subscribe/unsubscribe/trigger/connect/disconnect go.
///   - options: theme, log size, save folder, frame rate.
/// - Returns: why it stopped (`exitStatus` gives the process exit code).
@MainActor
public func runDashboard(events: AsyncStream<[ClientEvent]>, frames: AsyncStream<FrameBatch>? = nil,
    backend: any DashboardBackend, options: DashboardOptions) async throws -> DashboardExit
{
    let app = DashboardApp(setup: AppSetup(label: "", endpoint: backend.connectionDescription,
        credentials: options.credentials, hasAPI: options.api != nil), events: events, frames: frames,
        backend: backend, api: options.api, channels: options.recordChannels)
    return try await runDashboard(apps: [app], options: options)
}

/// Runs the dashboard on several apps at once (`pushtop --profile a --profile b`): one connection each; the
/// panes group by app, the log marks each entry's app, and keys act on the selected app (`A` selects the
/// next). With one app it is the same as ``runDashboard(events:frames:backend:options:)``.
@MainActor
public func runDashboard(apps: [DashboardApp], options: DashboardOptions) async throws -> DashboardExit {
    precondition(!apps.isEmpty, "runDashboard needs an app")
    let runner = DashboardRunner(apps: apps, options: options)
    return await runner.run(events: apps.map(\.events), frames: apps.map(\.frames))
}

/// Runs the dashboard on a recording (`pushtop replay`): no network; the recorded events drive the same
/// `reduce` as live, paced by the recorded times at the chosen speed, with play/pause, step, speed and jump.
@MainActor
public func runReplay(_ player: ReplayPlayer, options: DashboardOptions) async throws -> DashboardExit {
    let runner = DashboardRunner(backend: ReplayBackend(), options: options)
    runner.player = player
    return await runner.run(events: [AsyncStream { $0.finish() }], frames: [nil])
}

@MainActor
final class DashboardRunner {
    /// Each app's backend and HTTP API, by app index.
    let backends: [any DashboardBackend]
    let apis: [(any AppAPI)?]
    let apps: [DashboardApp]
    let options: DashboardOptions
    let inbox: Inbox
    var catalog: ThemeCatalog
    var state: DashboardState
    let screen: CursesScreen
    private var sources: [any DispatchSourceProtocol] = []
    private var lastDraw = 0.0

    convenience init(backend: any DashboardBackend, options: DashboardOptions) {
        self.init(apps: [DashboardApp(setup: AppSetup(label: "", endpoint: backend.connectionDescription,
            credentials: options.credentials, hasAPI: options.api != nil), events: AsyncStream { $0.finish() },
            frames: nil, backend: backend, api: options.api, channels: options.recordChannels)], options: options)
    }

    init(apps: [DashboardApp], options: DashboardOptions) {
        self.apps = apps
        backends = apps.map(\.backend)
        apis = apps.map(\.api)
        self.options = options
        inbox = Inbox(capacity: options.inboxCapacity)
        catalog = ThemeCatalog(environment: options.environment)
        let (theme, warning) = catalog.resolve(options.theme, environment: options.environment)
        catalog.include(theme)
        let noColor = !(options.environment["NO_COLOR"] ?? "").isEmpty
        screen = CursesScreen(colorAllowed: !noColor || options.theme != nil)
        var names = catalog.themes.map(\.name)
        if !names.contains(theme.name) { names.append(theme.name) }
        state = DashboardState(size: Size(rows: 24, columns: 80), now: DashboardRunner.clock(),
            configuration: .init(logCapacity: options.logCapacity, utcOffset: DashboardRunner.utcOffset(),
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
        self.currentTheme = theme
    }

    private var currentTheme: Theme
    /// Set when replaying a recording.
    var player: ReplayPlayer?
    private var lastReplayClock = 0.0
    /// Writes what arrives while recording.
    private var recorder: RecordingWriter?
    private var recordedOnce = false

    func run(events: [AsyncStream<[ClientEvent]>], frames: [AsyncStream<FrameBatch>?]) async -> DashboardExit {
        TerminalGuard.install()
        installSignalSources()  // before initscr, so curses does not take SIGWINCH
        screen.start(mouse: options.mouse)
        defer {
            screen.stop()
            for source in sources { source.cancel() }
            stdinStop.withLock { $0 = true }
        }
        screen.apply(currentTheme)
        if let player {
            let theme = state.themeIndex
            state = player.initialState(size: screen.size, configuration: state.configuration)
            state.themeIndex = theme
            lastReplayClock = DashboardRunner.clock()
        }
        _ = state.reduce(.resize(screen.size))
        installStdinWatcher()
        if options.recordPath != nil { toggleRecording() }
        defer { recorder?.close() }

        let inbox = self.inbox
        let isReplay = player != nil
        let feeds = events.enumerated().map { (app, events) in
            Task.detached {
                for await batch in events { inbox.post(batch, app: app, time: DashboardRunner.clock(), wake: false) }
                if !isReplay { inbox.update { $0.feedEnded = true } }
            }
        }
        let frameFeeds = frames.enumerated().compactMap { (app, frames) in
            frames.map { frames in
                Task.detached {
                    for await batch in frames {
                        inbox.post(frames: batch.frames, droppedUpstream: batch.droppedSoFar, app: app)
                    }
                }
            }
        }
        // The frame clock, on the main queue with the loop: one wake-up per frame, no task hop.
        let ticker = DispatchSource.makeTimerSource(queue: .main)
        let interval = 1_000_000_000 / max(1, options.framesPerSecond)
        ticker.schedule(deadline: .now() + .nanoseconds(interval), repeating: .nanoseconds(interval),
                        leeway: .milliseconds(1))
        ticker.setEventHandler { inbox.update { $0.tick = true } }
        ticker.resume()
        defer {
            for feed in feeds { feed.cancel() }
            for feed in frameFeeds { feed.cancel() }
            ticker.cancel()
        }

        screen.draw(state)
        state.needsDraw = false
        for await _ in inbox.wakeups {
            let p = inbox.take()
            if let sig = p.signal { return .signal(sig) }
            var effects: [Effect] = []
            if p.resized {
                effects += state.reduce(.resize(screen.handleResize()))
            }
            if p.dropped > 0 { effects += state.reduce(.dropped(p.dropped)) }
            if p.eventCount > 0 {
                // Each read burst at the time it arrived (it waited for this frame), in arrival order across the
                // apps, as the log and recordings show.
                var bursts: [(time: Double, app: Int, range: Range<Int>)] = []
                for (app, times) in p.eventTimes.enumerated() {
                    var start = 0
                    while start < times.count {
                        var end = start + 1
                        while end < times.count, times[end] == times[start] { end += 1 }
                        bursts.append((times[start], app, start..<end))
                        start = end
                    }
                }
                if p.eventTimes.count > 1 { bursts.sort { $0.time < $1.time } }
                for burst in bursts {
                    let time = player?.clock ?? burst.time
                    let events = Array(p.events[burst.app][burst.range])
                    effects += state.reduce(.tick(now: time))
                    effects += state.reduce(.client(events, app: burst.app))
                    if recorder != nil {
                        record(events.map { .tagged(.client(time: time, event: $0), app: burst.app) })
                    }
                }
            }
            for app in 0..<max(p.frames.count, (p.framesDroppedUpstream.keys.max() ?? -1) + 1) {
                let frames = app < p.frames.count ? p.frames[app] : []
                guard !frames.isEmpty || p.framesDroppedUpstream[app] != nil else { continue }
                let dropped = p.framesDroppedUpstream[app] ?? 0
                effects += state.reduce(.frames(frames, droppedUpstream: dropped, app: app))
                record((frames.map(RecordingItem.frame)
                    + (dropped > 0 ? [.framesDropped(time: DashboardRunner.clock(), total: dropped)] : []))
                    .map { .tagged($0, app: app) })
            }
            if p.feedEnded { state.setStatus("the client's event stream ended", isError: true) }
            for (text, isError) in p.notices { effects += state.reduce(.notice(text, isError: isError)) }
            for event in p.uiEvents {
                effects += state.reduce(event)
                if let item = RecordedAnswer.item(event, time: DashboardRunner.clock()) { record([item]) }
            }
            if p.inputReady {
                for event in screen.readInput() {
                    effects += state.reduce(event)
                    if effects.contains(.quit) { break }
                }
                resumeStdin()
            }
            if p.tick {
                if player != nil {
                    let now = DashboardRunner.clock()
                    player!.advance(wallSeconds: now - lastReplayClock, into: &state)
                    lastReplayClock = now
                } else {
                    effects += state.reduce(.tick(now: DashboardRunner.clock()))
                }
            }
            for effect in effects {
                if case .quit = effect { return .quit }
                perform(effect)
            }
            // Draw at most once per frame interval (a tick comes soon to draw what is left), except that a key
            // is answered at once.
            let now = DashboardRunner.clock()
            if state.needsDraw,
               p.inputReady || now - lastDraw >= 1.0 / Double(max(1, options.framesPerSecond)) * 0.9 {
                screen.draw(state)
                state.needsDraw = false
                lastDraw = now
            }
        }
        return .quit
    }

    /// Performs an effect; those that talk to an app go to the selected app's connection and API.
    private func perform(_ effect: Effect) {
        let app = backends.indices.contains(state.selectedApp) ? state.selectedApp : 0
        let backend = backends[app]
        let api = apis[app]
        let inbox = self.inbox
        switch effect {
        case .subscribe(let channel):
            Task.detached {
                do {
                    try await backend.subscribe(channel)
                } catch {
                    inbox.post([.subscriptionError(channel: channel, status: nil, message: "\(error)")], app: app,
                               time: DashboardRunner.clock())
                }
            }
        case .unsubscribe(let channel):
            Task.detached { await backend.unsubscribe(channel) }
        case .trigger(let channel, let event, let data):
            Task.detached {
                do {
                    try await backend.trigger(channel: channel, event: event, data: data)
                } catch {
                    inbox.post([.error(code: nil, message: "\(event) on \(channel) not sent: \(error)")], app: app,
                               time: DashboardRunner.clock())
                }
            }
        case .connect:
            Task.detached { await backend.connect() }
        case .disconnect:
            Task.detached { await backend.disconnect() }
        case .signIn:
            Task.detached {
                do {
                    try await backend.signIn()
                } catch {
                    inbox.post([.signInFailed(status: nil, message: "\(error)")], app: app,
                               time: DashboardRunner.clock())
                }
            }
        case .signOut:
            Task.detached { await backend.signOut() }
        case .saveLog:
            saveLog()
        case .applyTheme(let name):
            if let theme = catalog.theme(named: name) {
                currentTheme = theme
                screen.apply(theme)
                screen.invalidate()
            }
        case .redraw:
            screen.invalidate()
            state.needsDraw = true
        case .toggleRecording:
            toggleRecording()
        case .fetchOccupiedChannels:
            guard let api else { return }
            Task.detached {
                let event: UIEvent
                do {
                    event = .occupiedChannels(try await api.occupiedChannels(), error: nil, app: app)
                } catch {
                    event = .occupiedChannels(nil, error: "\(error)", app: app)
                }
                inbox.update { $0.uiEvents.append(event) }
            }
        case .fetchPresenceUsers(let channel):
            guard let api else { return }
            Task.detached {
                let event: UIEvent
                do {
                    event = .presenceUsers(channel: channel, userIDs: try await api.presenceUserIDs(channel: channel),
                        error: nil, app: app)
                } catch {
                    event = .presenceUsers(channel: channel, userIDs: nil, error: "\(error)", app: app)
                }
                inbox.update { $0.uiEvents.append(event) }
            }
        case .replay(let command):
            replayCommand(command)
        case .nodes(let request):
            performNodeRequest(request)
        case .quit:
            break
        }
    }

    /// Writes items to the recording, if one is open; a write failure stops recording and says why.
    private func record(_ items: [RecordingItem]) {
        guard let recorder, !items.isEmpty else { return }
        do {
            try recorder.write(items)
        } catch {
            recorder.close()
            self.recorder = nil
            _ = state.reduce(.recording(path: nil))
            state.setStatus("recording stopped: \(error)", isError: true)
        }
    }

    /// `r` (and `--record`): starts recording to `--record`'s file or a new one in the save folder, or stops.
    func toggleRecording() {
        if let recorder {
            recorder.close()
            self.recorder = nil
            _ = state.reduce(.recording(path: nil))
            state.setStatus("recording saved to \(recorder.path) (replay: pushtop replay \(recorder.path))")
            return
        }
        guard player == nil else {
            state.setStatus("a replay cannot be recorded", isError: true)
            return
        }
        // `--record FILE` is used once; recording again never overwrites it.
        let path = (recordedOnce ? nil : options.recordPath)
            ?? options.saveDirectory + "/pushtop-recording-" + DashboardRunner.fileStamp() + ".jsonl"
        recordedOnce = true
        let asked = apps.count > 1 ? apps.flatMap(\.channels) : options.recordChannels
        let channels = asked.isEmpty ? state.channels.map(\.name) : asked
        var header = RecordingHeader(started: DashboardRunner.clock(), endpoint: options.recordEndpoint.isEmpty
            ? state.apps[0].connection.endpoint : options.recordEndpoint, channels: channels, source: "pushtop dashboard")
        if state.isMultiApp {
            // Which app each line's "app" index names, so that a replay groups the same way.
            header.endpoint = state.apps[0].connection.endpoint
            header.apps = state.apps.map { RecordingHeader.App(label: $0.label, endpoint: $0.connection.endpoint) }
        }
        let secrets = ([options.credentials] + state.apps.map(\.credentials)).compactMap { $0?.secret }
        do {
            recorder = try RecordingWriter(path: path, header: header, scrub: Array(Set(secrets)))
            _ = state.reduce(.recording(path: path))
            state.setStatus("recording to \(path)")
        } catch {
            state.setStatus("\(error)", isError: true)
        }
    }

    private func replayCommand(_ command: ReplayCommand) {
        guard player != nil else {
            state.setStatus("replay controls work in pushtop replay", isError: true)
            return
        }
        if player!.perform(command, into: &state) { player!.restart(into: &state) }
        lastReplayClock = DashboardRunner.clock()
        state.needsDraw = true
    }

    private func saveLog() {
        let lines = state.logJSONLines()
        let path = options.saveDirectory + "/pushtop-log-" + DashboardRunner.fileStamp() + ".jsonl"
        if let error = TextFile.write(lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n"), to: path) {
            state.setStatus("could not save the log to \(path): \(error)", isError: true)
        } else {
            state.setStatus("saved \(Format.counted(lines.count, "entry", plural: "entries")) to \(path)")
        }
    }

    private func installSignalSources() {
        for sig in [SIGINT, SIGTERM, SIGWINCH, SIGHUP] {
            sources.append(DashboardRunner.makeSignalSource(sig, inbox: inbox))
        }
    }

    /// Made outside the main actor: the handler runs on a dispatch queue, and a closure formed in a
    /// main-actor method would be main-actor isolated (and trap when dispatch runs it elsewhere).
    nonisolated private static func makeSignalSource(_ sig: Int32, inbox: Inbox) -> any DispatchSourceSignal {
        signal(sig, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
        source.setEventHandler {
            if sig == SIGWINCH {
                inbox.update { $0.resized = true }
            } else {
                inbox.update { $0.signal = sig }
            }
        }
        source.resume()
        return source
    }

    /// stdin is watched by a plain thread (a serial queue of its own) that only polls and tells the loop
    /// that input is ready; the loop reads the keys itself (curses decodes them), then lets the watcher
    /// poll again, so the same bytes never wake the loop twice.
    private func installStdinWatcher() {
        DashboardRunner.watchStdin(inbox: inbox, acknowledged: stdinAcknowledged, stop: stdinStop)
    }

    nonisolated private static func watchStdin(inbox: Inbox, acknowledged: DispatchSemaphore, stop: Locked<Bool>) {
        DispatchQueue(label: "pushtop.stdin").async {
            var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            while !stop.withLock({ $0 }) {
                fds.revents = 0
                let n = poll(&fds, 1, 200)
                if n > 0 {
                    if fds.revents & Int16(POLLIN) == 0 {
                        // HUP or error on stdin: the terminal is gone.
                        inbox.update { $0.signal = SIGHUP }
                        return
                    }
                    inbox.update { $0.inputReady = true }
                    while !stop.withLock({ $0 }), acknowledged.wait(timeout: .now() + .milliseconds(200)) == .timedOut {}
                }
            }
        }
    }

    private let stdinAcknowledged = DispatchSemaphore(value: 0)
    private let stdinStop = Locked(false)

    private func resumeStdin() {
        stdinAcknowledged.signal()
    }

    nonisolated static func clock() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func utcOffset() -> Int {
        var t = time(nil)
        var tmValue = tm()
        localtime_r(&t, &tmValue)
        return Int(tmValue.tm_gmtoff)
    }

    static func fileStamp() -> String {
        var t = time(nil)
        var tmValue = tm()
        localtime_r(&t, &tmValue)
        var buffer = [CChar](repeating: 0, count: 32)
        let n = strftime(&buffer, buffer.count, "%Y%m%d-%H%M%S", &tmValue)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
