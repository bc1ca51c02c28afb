import PusherProtocol

/// Plays a recording into a dashboard state: a pure value (the runner feeds it the wall clock and keys), so
/// that a replay drives the same `reduce` with the same events as the live dashboard did.
public struct ReplayPlayer: Sendable {
    public let file: String
    public let header: RecordingHeader?
    /// Everything after the header, in recorded order.
    public let items: [RecordingItem]
    /// Where reading stopped, when the file is damaged.
    public let damage: RecordingDamage?
    /// Items applied so far.
    public private(set) var applied = 0
    /// Seconds since the recording's start.
    public private(set) var position = 0.0
    public private(set) var speed = 1.0
    public private(set) var playing = true
    private var framesDropped: [Int: Int] = [:]
    /// Where recorded console rows go as they come due (`pushtop replay` passes the one it gives the runner as
    /// ``DashboardOptions/console``); `nil`: they are skipped.
    public var console: ConsoleFeed?

    /// Reads a recording's text (see ``RecordingCodec/read(_:)``).
    public init(file: String, text: String) {
        self.file = file
        let (all, damage) = RecordingCodec.read(text)
        if case .header(let h)? = all.first {
            header = h
            items = Array(all.dropFirst())
        } else {
            header = nil
            items = all
        }
        self.damage = damage
        latest = items.map(\.time).max()
    }

    /// Sets the speed (one of ``ReplayStatus/speeds``) and whether it plays at once.
    public mutating func configure(speed: Double, playing: Bool) {
        self.speed = ReplayStatus.speeds.contains(speed) ? speed : 1
        self.playing = playing
    }

    /// The recording's first moment (seconds since 1970).
    public var start: Double { header?.started ?? items.first?.time ?? 0 }
    /// The recording's length in seconds (to its latest time stamp: frames and events may interleave).
    public var duration: Double { max(0, (latest ?? start) - start) }
    private let latest: Double?
    /// The recorded clock at the current position.
    public var clock: Double { start + position }
    public var isFinished: Bool { applied >= items.count }

    public var status: ReplayStatus {
        ReplayStatus(
            file: file, position: position, duration: duration, speed: speed, playing: playing && !isFinished,
            applied: applied, total: items.count, damage: damage?.description)
    }

    /// A state to start (or restart) from: the live dashboard's initial state, at the recording's start.
    public func initialState(size: Size, configuration: DashboardState.Configuration) -> DashboardState {
        var state = DashboardState(size: size, now: start, configuration: configuration)
        if let header, header.apps.count > 1 {
            // Several apps were recorded: the same grouping, no credentials (a replay signs nothing).
            state.setApps(header.apps.map { AppSetup(label: $0.label, endpoint: $0.endpoint + " (replay)") })
        } else if let header {
            state.setEndpoint(header.endpoint + " (replay)")
        }
        _ = state.reduce(.replay(status))
        return state
    }

    /// Advances by `seconds` of wall-clock time (times the speed, while playing) and applies what became due.
    public mutating func advance(wallSeconds seconds: Double, into state: inout DashboardState) {
        guard playing, !isFinished else { return }
        position = min(duration, position + seconds * speed)
        applyDue(into: &state)
    }

    /// Applies every item up to the current position, then moves the state's clock there.
    mutating func applyDue(into state: inout DashboardState) {
        while applied < items.count, items[applied].time - start <= position + 1e-9 {
            apply(items[applied], into: &state)
            applied += 1
        }
        _ = state.reduce(.tick(now: clock))
        _ = state.reduce(.replay(status))
    }

    /// Performs a control. Returns `true` when the state must be rebuilt from the start (a jump backwards):
    /// the runner then calls ``restart(into:)``.
    public mutating func perform(_ command: ReplayCommand, into state: inout DashboardState) -> Bool {
        switch command {
        case .togglePlay:
            if isFinished {
                return rewind(to: 0, into: &state)
            }
            playing.toggle()
        case .step:
            playing = false
            if applied < items.count {
                position = max(position, items[applied].time - start)
                applyDue(into: &state)
            }
        case .faster:
            speed = ReplayStatus.speeds.first { $0 > speed } ?? speed
        case .slower:
            speed = ReplayStatus.speeds.last { $0 < speed } ?? speed
        case .jump(let target):
            return rewind(to: target, into: &state)
        }
        _ = state.reduce(.replay(status))
        return false
    }

    private mutating func rewind(to target: Double, into state: inout DashboardState) -> Bool {
        let t = max(0, min(duration, target))
        if t >= position {
            position = t
            applyDue(into: &state)
            return false
        }
        position = t
        return true
    }

    /// Rebuilds `state` from the start of the recording up to the current position (after a jump backwards).
    public mutating func restart(into state: inout DashboardState) {
        let fresh = initialState(size: state.size, configuration: state.configuration)
        let keep = (state.view, state.themeIndex)
        state = fresh
        state.view = keep.0
        state.themeIndex = keep.1
        applied = 0
        framesDropped = [:]
        applyDue(into: &state)
    }

    private mutating func apply(_ item: RecordingItem, into state: inout DashboardState, app: Int = 0) {
        switch item {
        case .header:
            break
        case .client(let time, let event):
            _ = state.reduce(.tick(now: max(state.now, time)))  // the clock never runs backwards
            _ = state.reduce(.client([event], app: app))
        case .frame(let frame):
            _ = state.reduce(.frames([frame], droppedUpstream: framesDropped[app] ?? 0, app: app))
        case .framesDropped(_, let total):
            framesDropped[app] = total
            _ = state.reduce(.frames([], droppedUpstream: total, app: app))
        case .apiAnswer(let time, let query, let result, let error):
            // The channel browser's and the presence check's answers, as they came live.
            if let event = RecordedAnswer.event(query: query, result: result, error: error, app: app) {
                _ = state.reduce(.tick(now: max(state.now, time)))
                _ = state.reduce(event)
            }
        case .console(let time, let row):
            // The console's state lives in `state`, which a jump backwards rebuilds: the rows are posted again.
            _ = state.reduce(.tick(now: max(state.now, time)))
            console?.post([row])
        case .inApp(let app, let item):
            apply(item, into: &state, app: app)
        }
    }
}
