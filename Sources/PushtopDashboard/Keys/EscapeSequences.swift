/// Home, End, Delete (and the arrows and pages) as terminals send them, recognised whatever the terminfo entry
/// says.
///
/// Inside tmux or screen with `TERM=xterm-256color` (a common mistake) Home arrives as `ESC [ 1 ~`, which that
/// entry does not list: curses hands over `Esc` and then `[`, `1`, `~` as typed characters, and Esc closes the
/// view. Read in one batch, such a run is one key.
public enum EscapeSequences {
    /// The sequences after `ESC`, and their keys.
    public static let table: [(sequence: String, key: Key)] = [
        ("[1~", .home), ("[7~", .home), ("[H", .home), ("OH", .home),
        ("[4~", .end), ("[8~", .end), ("[F", .end), ("OF", .end),
        ("[3~", .delete), ("[5~", .pageUp), ("[6~", .pageDown), ("[2~", .function(0)),
        ("[A", .up), ("[B", .down), ("[C", .right), ("[D", .left),
        ("OA", .up), ("OB", .down), ("OC", .right), ("OD", .left),
        ("[Z", .backTab),
    ]

    /// `events` with each `Esc` that starts a known sequence (followed by its characters, read in the same
    /// batch) replaced by the key. `[2~` (Insert) is swallowed: the dashboard has no use for it.
    public static func combine(_ events: [UIEvent]) -> [UIEvent] {
        func key(_ i: Int) -> Key? {
            if case .key(let k) = events[i] { return k }
            return nil
        }
        guard events.indices.contains(where: { key($0) == .escape }) else { return events }
        var out: [UIEvent] = []
        out.reserveCapacity(events.count)
        var i = 0
        outer: while i < events.count {
            if key(i) == .escape {
                for (sequence, replacement) in table {
                    let chars = Array(sequence)
                    guard i + chars.count < events.count else { continue }
                    var matches = true
                    for (k, ch) in chars.enumerated() where key(i + 1 + k) != .char(ch) {
                        matches = false
                        break
                    }
                    if matches {
                        if replacement != .function(0) { out.append(.key(replacement)) }
                        i += 1 + chars.count
                        continue outer
                    }
                }
            }
            out.append(events[i])
            i += 1
        }
        return out
    }

    /// Keys only: `keys` with each known sequence after `Esc` replaced by its key.
    public static func combine(keys: [Key]) -> [Key] {
        combine(keys.map { UIEvent.key($0) }).compactMap { if case .key(let k) = $0 { k } else { nil } }
    }
}
