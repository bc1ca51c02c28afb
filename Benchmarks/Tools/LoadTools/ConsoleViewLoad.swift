import Foundation
import PusherProtocol
import PushtopDashboard

/// `pushtop-benchmarks console-view [--rate 5000] [--fps 30] [--seconds 10]`: the dashboard's debug console under a
/// stream of rows, as the dashboard's loop does it: each frame, the rows of that frame (rate / fps) through
/// `reduce(.console)` and a tick, then a whole 140x42 frame drawn into the grid canvas (the curses write of the
/// changed cells is not included). CPU time over the simulated seconds is the share of one core. Three runs: the
/// plain list following the newest row; a filter, a type hidden and "frequently seen" open; following one socket.
/// The ring is full (50,000 rows) before the clock starts, so every run measures the steady state.
enum ConsoleViewLoad {
    struct Settings {
        var rate = 5_000
        var fps = 30
        var seconds = 10.0
    }

    /// The calling thread's CPU time, in seconds.
    static func cpuSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The process's resident memory in MB (`/proc/self/statm`).
    static func residentMB() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = text.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }

    /// A realistic mix: mostly API messages with JSON data, connections and disconnections of a thousand
    /// sockets, subscriptions, client events.
    static func row(_ n: Int, timeMs: Int64) -> ConsoleRow {
        let socket = "\(1000 + n % 1000).\(n % 7919)"
        var r: ConsoleRow
        switch n % 20 {
        case 0:
            r = ConsoleRow(type: .connection, timeMs: timeMs)
            r.socketID = socket
            r.remoteAddress = "10.0.\(n % 250).\(n % 200):5\(n % 1000)"
            r.clientLibrary = "js"
            r.clientVersion = "8.6.0"
            r.protocolVersion = 7
        case 1:
            r = ConsoleRow(type: .subscribed, timeMs: timeMs)
            r.socketID = socket
            r.channel = "private-user-\(n % 500)"
        case 2:
            r = ConsoleRow(type: .clientEvent, timeMs: timeMs)
            r.socketID = socket
            r.channel = "private-user-\(n % 500)"
            r.event = "client-typing"
            r.data = #"{"typing":true}"#
        case 19:
            r = ConsoleRow(type: .disconnection, timeMs: timeMs)
            r.socketID = "\(1000 + (n - 19) % 1000).\((n - 19) % 7919)"
            r.code = 4200
            r.closedBy = .client
            r.lifetimeMs = 5_000
        default:
            r = ConsoleRow(type: .apiMessage, timeMs: timeMs)
            r.channel = "market-\(n % 40)"
            r.channels = [r.channel!]
            r.event = "price-update"
            r.data = #"{"symbol":"BTC","price":\#(60_000 + n % 977),"note":"🚀 東京","seq":\#(n)}"#
            r.dataBytes = r.data!.utf8.count
            r.remoteAddress = "10.0.0.5"
        }
        r.node = "node-\(n % 3)"
        r.appID = "1"
        r.source = .server
        return r
    }

    struct Result {
        var name: String
        var cpuSeconds: Double
        var frames: Int
        var simulatedSeconds: Double
        var worstFrameMicros: Double

        var line: String {
            let share = cpuSeconds / simulatedSeconds * 100
            let perFrame = cpuSeconds / Double(frames) * 1e6
            return
                "\(name): \(String(format: "%.1f", share)) % of one core; \(Int(perFrame)) µs a frame (update + draw), worst \(Int(worstFrameMicros)) µs"
        }
    }

    static func measure(_ name: String, _ s: Settings, keys: [Key]) -> Result {
        let start = 1_700_000_000.0
        var state = DashboardState(size: Size(rows: 42, columns: 140), now: start)
        var canvas = GridCanvas(size: state.size)
        var n = 0
        // Fill the ring (50,000 rows) before the clock starts.
        let warm = state.console.capacity
        while n < warm {
            let rows = (n..<min(warm, n + 1_000)).map { row($0, timeMs: Int64(start * 1000) - 60_000 + Int64($0)) }
            _ = state.reduce(.console(ConsoleUpdate(rows: rows)))
            n += rows.count
        }
        _ = state.reduce(.key(.char("C")))
        for key in keys { _ = state.reduce(.key(key)) }
        let frames = Int(s.seconds * Double(s.fps))
        var due = 0.0
        var worst = 0.0
        let before = cpuSeconds()
        for f in 0..<frames {
            let frameStart = cpuSeconds()
            let now = start + Double(f) / Double(s.fps)
            due += Double(s.rate) / Double(s.fps)
            var rows: [ConsoleRow] = []
            rows.reserveCapacity(Int(due) + 1)
            let ms = Int64(now * 1000)
            while due >= 1 {
                rows.append(row(n, timeMs: ms))
                n += 1
                due -= 1
            }
            _ = state.reduce(.console(ConsoleUpdate(rows: rows)))
            _ = state.reduce(.tick(now: now))
            DashboardView.draw(state, into: &canvas)
            worst = max(worst, (cpuSeconds() - frameStart) * 1e6)
        }
        let cpu = cpuSeconds() - before
        return Result(name: name, cpuSeconds: cpu, frames: frames, simulatedSeconds: s.seconds, worstFrameMicros: worst)
    }

    static func run(_ s: Settings) -> String {
        var lines = [
            "console view: \(s.rate) rows/s, \(s.fps) fps, \(s.seconds) s simulated, 140x42, ring of 50,000 rows full"
        ]
        lines.append(measure("following the newest row", s, keys: []).line)
        lines.append(
            measure(
                "filter 'BTC', client events hidden, frequently seen open", s,
                keys: [.char("/"), .char("B"), .char("T"), .char("C"), .enter, .char("5"), .char("F")]
            ).line)
        // A connection's socket (found with the filter, which is then cleared).
        let follow: [Key] = [.char("/")] + "1000.".map { Key.char($0) } + [.enter, .char("k"), .char("f")]
        lines.append(measure("following one socket", s, keys: follow + [.char("/"), .ctrl("u"), .enter]).line)
        lines.append(
            "resident memory after the runs: \(Int(residentMB())) MB (a row: \(MemoryLayout<ConsoleRow>.stride) bytes inline, plus its strings)"
        )
        return lines.joined(separator: "\n")
    }
}
