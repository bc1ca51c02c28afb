import PusherProtocol
import PushtopDashboard
import PushtopDashboardFakes

/// 2023-11-14 22:13:20 UTC: a fixed clock for the tests.
let t0 = 1_700_000_000.0

/// A state at a size, connected, with a few channels and a presence roster.
func demoState(size: Size = Size(rows: 42, columns: 140), capacity: Int = 10_000) -> DashboardState {
    var state = DashboardState(
        size: size, now: t0,
        configuration: .init(
            logCapacity: capacity,
            themeNames: ["default", "light", "mono"]))
    state.setEndpoint("127.0.0.1:6001 (no TLS)")
    _ = state.reduce(.client(ScriptedFeed.demoOpening))
    return state
}

/// The demo's opening at 140x42, with an HTTP API (for the channel browser and the presence check).
func demoStateWithAPI() -> DashboardState {
    var state = DashboardState(size: Size(rows: 42, columns: 140), now: t0, configuration: .init(hasAPI: true))
    _ = state.reduce(.client(ScriptedFeed.demoOpening))
    return state
}

func event(_ channel: String, _ name: String, _ data: String?, user: String? = nil, at time: Double = 0) -> ClientEvent
{
    .event(ChannelEvent(channel: channel, name: name, dataText: data, userID: user, receivedAt: time))
}

/// Draws a whole frame and returns its text.
func frame(_ state: DashboardState) -> String {
    canvas(state).text
}

/// Draws a whole frame.
func canvas(_ state: DashboardState) -> GridCanvas {
    var canvas = GridCanvas(size: state.size)
    DashboardView.draw(state, into: &canvas)
    return canvas
}

/// Draws one pane into a canvas of exactly its size (at the origin) and returns its text.
func pane(_ size: Size, _ draw: (inout GridCanvas, Rect) -> Void) -> String {
    var canvas = GridCanvas(size: size)
    draw(&canvas, Rect(row: 0, column: 0, height: size.rows, width: size.columns))
    return canvas.text
}

extension DashboardState {
    /// Reduces a sequence of keys, returning all effects.
    @discardableResult
    mutating func press(_ keys: Key...) -> [Effect] {
        keys.flatMap { reduce(.key($0)) }
    }

    @discardableResult
    mutating func type(_ text: String) -> [Effect] {
        text.flatMap { reduce(.key(.char($0))) }
    }
}

/// The repository's root folder (for `themes/`).
func repositoryRoot(file: String = #filePath) -> String {
    var parts = file.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}
