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
public func runDashboard(events: AsyncStream<[ClientEvent]>, backend: any DashboardBackend,
    options: DashboardOptions) async throws -> DashboardExit
{
    let runner = DashboardRunner(backend: backend, options: options)
    return await runner.run(events: events)
}

@MainActor
final class DashboardRunner {
    let backend: any DashboardBackend
    let options: DashboardOptions
    let inbox: Inbox
    var catalog: ThemeCatalog
    var state: DashboardState
    let screen: CursesScreen
    private var sources: [any DispatchSourceProtocol] = []
    private var lastDraw = 0.0

    init(backend: any DashboardBackend, options: DashboardOptions) {
        self.backend = backend
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
                themeNames: names))
        state.themeIndex = names.firstIndex(of: theme.name) ?? 0
        state.setEndpoint(backend.connectionDescription)
        let problems = catalog.warnings + (warning.map { [$0] } ?? [])
        if !problems.isEmpty { state.setStatus(problems.joined(separator: "; "), isError: true) }
        self.currentTheme = theme
    }

    private var currentTheme: Theme

    func run(events: AsyncStream<[ClientEvent]>) async -> DashboardExit {
        TerminalGuard.install()
        installSignalSources()  // before initscr, so curses does not take SIGWINCH
        screen.start(mouse: options.mouse)
        defer {
            screen.stop()
            for source in sources { source.cancel() }
            stdinStop.withLock { $0 = true }
        }
        screen.apply(currentTheme)
        _ = state.reduce(.resize(screen.size))
        installStdinWatcher()

        let inbox = self.inbox
        let feed = Task.detached {
            for await batch in events { inbox.post(batch) }
            inbox.update { $0.feedEnded = true }
        }
        let interval = UInt64(1_000_000_000 / max(1, options.framesPerSecond))
        let ticker = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: interval)
                inbox.update { $0.tick = true }
            }
        }
        defer {
            feed.cancel()
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
            if !p.events.isEmpty {
                effects += state.reduce(.tick(now: DashboardRunner.clock()))
                effects += state.reduce(.client(p.events))
            }
            if p.feedEnded { state.setStatus("the client's event stream ended", isError: true) }
            for (text, isError) in p.notices { effects += state.reduce(.notice(text, isError: isError)) }
            if p.inputReady {
                for event in screen.readInput() {
                    effects += state.reduce(event)
                    if effects.contains(.quit) { break }
                }
                resumeStdin()
            }
            if p.tick { effects += state.reduce(.tick(now: DashboardRunner.clock())) }
            for effect in effects {
                if case .quit = effect { return .quit }
                perform(effect)
            }
            // Draw at most once per frame interval; a tick comes soon to draw what is left.
            let now = DashboardRunner.clock()
            if state.needsDraw, now - lastDraw >= 1.0 / Double(max(1, options.framesPerSecond)) * 0.9 {
                screen.draw(state)
                state.needsDraw = false
                lastDraw = now
            }
        }
        return .quit
    }

    private func perform(_ effect: Effect) {
        let backend = self.backend
        let inbox = self.inbox
        switch effect {
        case .subscribe(let channel):
            Task.detached {
                do {
                    try await backend.subscribe(channel)
                } catch {
                    inbox.post([.subscriptionError(channel: channel, status: nil, message: "\(error)")])
                }
            }
        case .unsubscribe(let channel):
            Task.detached { await backend.unsubscribe(channel) }
        case .trigger(let channel, let event, let data):
            Task.detached {
                do {
                    try await backend.trigger(channel: channel, event: event, data: data)
                } catch {
                    inbox.post([.error(code: nil, message: "\(event) on \(channel) not sent: \(error)")])
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
                    inbox.post([.signInFailed(status: nil, message: "\(error)")])
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
        case .quit:
            break
        }
    }

    private func saveLog() {
        let lines = state.logJSONLines()
        let path = options.saveDirectory + "/pushtop-log-" + DashboardRunner.fileStamp() + ".jsonl"
        if let error = TextFile.write(lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n"), to: path) {
            state.setStatus("could not save the log to \(path): \(error)", isError: true)
        } else {
            state.setStatus("saved \(lines.count) entries to \(path)")
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

    static func clock() -> Double {
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
