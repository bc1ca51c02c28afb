/// Formatting of times, durations and counts for the panes (no Foundation, no locale).
public enum Format {
    /// `HH:MM:SS.mmm` of a time (seconds since 1970) at a UTC offset.
    public static func clock(_ time: Double, utcOffset: Int, millis: Bool = true) -> String {
        let ms = Int((time * 1000).rounded(.down)) + utcOffset * 1000
        let dayMs = ((ms % 86_400_000) + 86_400_000) % 86_400_000
        let h = dayMs / 3_600_000, m = dayMs / 60_000 % 60, s = dayMs / 1000 % 60
        let base = two(h) + ":" + two(m) + ":" + two(s)
        guard millis else { return base }
        let f = dayMs % 1000
        return base + "." + (f < 10 ? "00" : f < 100 ? "0" : "") + String(f)
    }

    /// A duration as `1:02:03`, or `4:05` under an hour.
    public static func duration(_ seconds: Double) -> String {
        let total = max(0, Int(seconds))
        let h = total / 3600, m = total / 60 % 60, s = total % 60
        return h > 0 ? "\(h):" + two(m) + ":" + two(s) : "\(m):" + two(s)
    }

    /// Seconds with one decimal under 10 s (`2.5 s`), whole seconds above.
    public static func seconds(_ value: Double) -> String {
        if value < 10 {
            let tenths = Int((max(0, value) * 10).rounded())
            return "\(tenths / 10).\(tenths % 10) s"
        }
        return "\(Int(value.rounded())) s"
    }

    /// A count with k/M suffixes when large (`12.3k`).
    public static func count(_ n: Int) -> String {
        if n < 10_000 { return String(n) }
        if n < 1_000_000 { return "\(n / 1000).\(n / 100 % 10)k" }
        return "\(n / 1_000_000).\(n / 100_000 % 10)M"
    }

    /// Milliseconds from seconds (`12 ms`, `0.4 ms`).
    public static func millis(_ seconds: Double) -> String {
        let ms = seconds * 1000
        if ms < 10 {
            let tenths = Int((ms * 10).rounded())
            return "\(tenths / 10).\(tenths % 10) ms"
        }
        return "\(Int(ms.rounded())) ms"
    }

    /// A count and a noun, singular or plural: `1 channel`, `3 channels`, `1 match`, `2 matches`.
    /// `plural` defaults to the noun plus `s` (`es` after s, x, ch and sh).
    public static func counted(_ n: Int, _ noun: String, plural: String? = nil) -> String {
        if n == 1 { return "1 \(noun)" }
        let many = plural ?? (["s", "x", "ch", "sh"].contains { noun.hasSuffix($0) } ? noun + "es" : noun + "s")
        return "\(n) \(many)"
    }

    /// A size in bytes: `512 B`, `1.5 KB`, `2.0 MB`.
    public static func bytes(_ n: Int) -> String {
        if n < 1024 { return "\(n) B" }
        if n < 1024 * 1024 { return "\(n / 1024).\(n * 10 / 1024 % 10) KB" }
        return "\(n / 1_048_576).\(n * 10 / 1_048_576 % 10) MB"
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
}

/// Sparklines: a series of counts as block characters, scaled to the largest.
public enum Sparkline {
    static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// One character per value: a space for zero, else a block from ▁ to █ relative to the largest value.
    public static func render(_ values: [Int]) -> String {
        let top = values.max() ?? 0
        var out = ""
        for v in values {
            if v <= 0 {
                out.append(" ")
            } else {
                let level = top <= 0 ? 0 : min(7, (v * 8 - 1) / top)
                out.append(blocks[level])
            }
        }
        return out
    }
}
