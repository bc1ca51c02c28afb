/// A replay control, from a key to the replay runner.
public enum ReplayCommand: Sendable, Hashable {
    case togglePlay
    /// Apply the next recorded item and pause.
    case step
    /// Double the speed (at most ×16).
    case faster
    /// Halve the speed (at least ×0.5).
    case slower
    /// Jump to this many seconds after the recording's start (backwards replays from the start, quickly).
    case jump(to: Double)
}

/// Where a replay stands, for the header: position, length, speed, and whether the recording was damaged.
public struct ReplayStatus: Sendable, Hashable {
    /// The recording's file name.
    public var file: String
    /// Seconds since the recording's start.
    public var position: Double
    /// The recording's length in seconds (up to the damage, if any).
    public var duration: Double
    public var speed: Double
    public var playing: Bool
    /// Items applied, and in all.
    public var applied: Int
    public var total: Int
    /// Where reading stopped, e.g. "line 42: not JSON"; `nil` for an intact recording.
    public var damage: String?

    public init(
        file: String, position: Double, duration: Double, speed: Double, playing: Bool, applied: Int,
        total: Int, damage: String? = nil
    ) {
        self.file = file
        self.position = position
        self.duration = duration
        self.speed = speed
        self.playing = playing
        self.applied = applied
        self.total = total
        self.damage = damage
    }

    /// The speeds the controls step through.
    public static let speeds: [Double] = [0.5, 1, 2, 4, 8, 16]

    /// `×0.5`, `×2`.
    public var speedText: String {
        speed == speed.rounded() ? "×\(Int(speed))" : "×\(speed)"
    }

    /// The header text: `▶ REPLAY 0:12/1:30 ×2`, `❚❚`, `■ end`.
    public var summary: String {
        let mark = applied >= total ? "■" : (playing ? "▶" : "❚❚")
        var text = "\(mark) REPLAY \(Format.duration(position))/\(Format.duration(duration)) \(speedText)"
        if applied >= total { text += " end" }
        if let damage { text += " · damaged, stopped at \(damage)" }
        return text
    }

    /// Reads a jump target: `m:ss`, `h:mm:ss`, seconds, or `+s`/`-s` relative to `position`.
    public static func parseTime(_ text: String, position: Double) -> Double? {
        let t = text.trimmingSpaces
        if t.hasPrefix("+") || t.hasPrefix("-") {
            guard let d = Double(t.dropFirst()) else { return nil }
            return max(0, position + (t.hasPrefix("-") ? -d : d))
        }
        let parts = t.split(separator: ":", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 3 else { return nil }
        var total = 0.0
        for part in parts {
            guard let v = Double(part), v >= 0 else { return nil }
            total = total * 60 + v
        }
        return total
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
