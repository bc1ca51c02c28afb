/// Display-column measurement with `wcwidth` semantics: CJK and emoji take two columns, combining marks and
/// zero-width characters none, control characters are replaced before drawing.
///
/// Curses places text by the C library's `wcwidth`, one scalar at a time; measuring the same way keeps every
/// pane's text inside its borders (a `String.count` would be wrong for `"東京"`, `"é"` written as e + U+0301,
/// or `"🚀"`).
///
/// Emoji *sequences* are where terminals disagree with `wcwidth` and with each other: tmux 3.3 draws
/// `👩‍👩‍👧‍👦` (four emoji joined by U+200D) in 2 columns where curses counted 8, newer terminals widen `❤️`
/// (U+2764 + VS16) to 2 and merge a skin tone into its emoji. Text drawn that way moves every border to its
/// right. So ``sanitized(_:)`` sends the terminal only what every terminal draws at the `wcwidth` width: the
/// joiners, emoji variation selectors and skin-tone modifiers inside emoji sequences are left out (the family
/// shows as its four members, `👍🏽` as `👍`, `❤️` as `❤`); regional-indicator flags stay (a pair takes the two
/// columns of its two letters in every terminal). Text is cut only between grapheme clusters, never inside one.
public enum DisplayWidth {
    /// The columns one scalar takes: 0, 1 or 2 (C1 controls 0: they never reach the terminal).
    @inline(__always)
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x7F { return v >= 0x20 ? 1 : 0 }
        if v < 0xA0 { return 0 }
        if v < 0x300 { return 1 }
        return slowWidth(v, scalar)
    }

    /// The columns a string takes once sanitized (controls count as the replacement's width).
    public static func of(_ text: String) -> Int {
        var total = 0
        for scalar in sanitized(text).unicodeScalars {
            let v = scalar.value
            total += v >= 0x20 && v < 0x7F ? 1 : of(scalar)
        }
        return total
    }

    /// The columns one grapheme cluster of sanitized text takes.
    @inline(__always)
    public static func of(_ character: Character) -> Int {
        var total = 0
        for scalar in character.unicodeScalars { total += of(scalar) }
        return total
    }

    /// Whether `text` needs ``sanitized(_:)`` to change anything: a control character (C0, DEL, C1), or a
    /// scalar that may belong to an emoji sequence (U+200D, a variation selector, an emoji modifier).
    @inline(__always)
    static func needsSanitizing(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable(needsSanitizing) ?? needsSanitizing(Array(text.utf8))
    }

    /// The UTF-8 scan behind ``needsSanitizing(_:)``: exact byte patterns, so that box drawing (`E2 94 xx`)
    /// and other common text stays on the fast path.
    static func needsSanitizing<C: RandomAccessCollection>(_ b: C) -> Bool where C.Element == UInt8, C.Index == Int {
        var i = b.startIndex
        let end = b.endIndex
        while i < end {
            let x = b[i]
            if x < 0x20 || x == 0x7F { return true }
            if x >= 0xC2 {
                let y = i + 1 < end ? b[i + 1] : 0, z = i + 2 < end ? b[i + 2] : 0
                switch x {
                case 0xC2 where y >= 0x80 && y <= 0x9F: return true  // C1 controls
                case 0xE2 where y == 0x80 && z == 0x8D: return true  // U+200D
                case 0xEF where y == 0xB8 && (z == 0x8E || z == 0x8F): return true  // U+FE0E, U+FE0F
                case 0xF0 where y == 0x9F && z == 0x8F && i + 3 < end && b[i + 3] >= 0xBB && b[i + 3] <= 0xBF:
                    return true  // a skin tone
                default: break
                }
            }
            i += 1
        }
        return false
    }

    /// The text as the terminal may receive it: control characters (newlines, tabs, escapes, C1 controls such
    /// as U+009B, a one-byte CSI) replaced so that one line stays one line and nothing reaches the terminal as
    /// a command; inside emoji sequences, the joiners, variation selectors and skin tones left out (see the
    /// type's discussion).
    public static func sanitized(_ text: String) -> String {
        guard needsSanitizing(text) else { return text }
        var out = String.UnicodeScalarView()
        var previousIsEmoji = false
        let scalars = Array(text.unicodeScalars)
        var changed = false
        for (i, scalar) in scalars.enumerated() {
            let v = scalar.value
            switch v {
            case 0x09, 0x0A, 0x0D:
                out.append(" ")
                changed = true
                previousIsEmoji = false
                continue
            case 0..<0x20, 0x7F..<0xA0:
                out.append("\u{FFFD}")
                changed = true
                previousIsEmoji = false
                continue
            case 0x200D:
                // A joiner between emoji (or after one, dangling at the end) would make the terminal merge cells.
                let nextIsEmoji = i + 1 < scalars.count && isEmoji(scalars[i + 1])
                if previousIsEmoji || nextIsEmoji || i + 1 == scalars.count {
                    changed = true
                    continue
                }
            case 0xFE0E, 0xFE0F:
                // Text / emoji presentation: terminals disagree on the width it gives.
                changed = true
                continue
            case 0x1F3FB...0x1F3FF where previousIsEmoji:
                // A skin tone after an emoji: merged into it by some terminals, drawn beside it by others.
                changed = true
                continue
            default:
                break
            }
            out.append(scalar)
            previousIsEmoji = isEmoji(scalar)
        }
        return changed ? String(out) : text
    }

    /// Pictographic emoji (not the digits, `#` and `*` that Unicode also marks as emoji).
    @inline(__always)
    static func isEmoji(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        guard v >= 0x2000 else { return false }
        if v >= 0x1F000 && v < 0x1FB00 { return true }
        return scalar.properties.isEmoji
    }

    /// The longest prefix of `text` (sanitized) that fits in `columns`, and its width.
    ///
    /// Whole grapheme clusters only: a wide character that would straddle the limit is left out, combining
    /// marks stay with their base, a flag is never cut in half.
    public static func clip(_ text: String, to columns: Int) -> (text: String, width: Int) {
        guard columns > 0 else { return ("", 0) }
        let clean = sanitized(text)
        // Fast path: ASCII only.
        let utf8 = clean.utf8
        if utf8.count <= columns, utf8.allSatisfy({ $0 < 0x80 }) {
            return (clean, utf8.count)
        }
        // Scalar by scalar while every scalar is a grapheme cluster of its own (no zero-width scalar, no
        // regional indicator): box drawing, CJK, plain emoji. Else cluster by cluster.
        var width = 0
        var scalarEnd = clean.unicodeScalars.startIndex
        var simple = true
        for index in clean.unicodeScalars.indices {
            let scalar = clean.unicodeScalars[index]
            let w = of(scalar)
            if w == 0 || (0x1F1E6...0x1F1FF).contains(scalar.value) {
                simple = false
                break
            }
            if width + w > columns { break }
            width += w
            scalarEnd = clean.unicodeScalars.index(after: index)
        }
        if simple { return (String(clean.unicodeScalars[..<scalarEnd]), width) }
        width = 0
        var end = clean.startIndex
        for index in clean.indices {
            let w = of(clean[index])
            if width + w > columns { break }
            width += w
            end = clean.index(after: index)
        }
        var kept = String(clean[..<end])
        // A joiner left at the cut (inside a script's cluster) must not join the terminal's next cell to it.
        while kept.unicodeScalars.last?.value == 0x200D { kept.unicodeScalars.removeLast() }
        return (kept, width)
    }

    /// `text` clipped to `columns`, with `…` as the last column when something was cut.
    public static func truncate(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        let clean = sanitized(text)
        if of(clean) <= columns { return clean }
        return clip(clean, to: columns - 1).text + "…"
    }

    /// `text` clipped or padded with spaces to exactly `columns`.
    public static func pad(_ text: String, to columns: Int) -> String {
        let (clipped, width) = clip(text, to: columns)
        return width < columns ? clipped + String(repeating: " ", count: columns - width) : clipped
    }

    /// `text` (sanitized) cut into lines of at most `columns` columns, between grapheme clusters; lines after
    /// the first start with `continuation` (e.g. an indent). Always at least one line.
    public static func wrap(_ text: String, to columns: Int, continuation: String = "") -> [String] {
        let clean = sanitized(text)
        guard columns > 0, of(clean) > columns else { return [clean] }
        let prefixWidth = of(continuation) < columns / 2 ? of(continuation) : 0
        var lines: [String] = []
        var current = ""
        var width = 0
        for character in clean {
            let w = of(character)
            if width + w > columns, width > (lines.isEmpty ? 0 : prefixWidth) {
                lines.append(current)
                current = prefixWidth > 0 ? continuation : ""
                width = prefixWidth
            }
            current.append(character)
            width += w
        }
        if width > (lines.isEmpty ? 0 : prefixWidth) || lines.isEmpty { lines.append(current) }
        return lines
    }

    private static func slowWidth(_ v: UInt32, _ scalar: Unicode.Scalar) -> Int {
        // Zero width: combining marks, zero-width space/joiners, variation selectors, format characters.
        switch v {
        case 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2064, 0xFE00...0xFE0F, 0xFEFF, 0xE0100...0xE01EF,
            0x1160...0x11FF:
            return 0
        default: break
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        case .control: return 0
        default: break
        }
        return isWide(v) ? 2 : 1
    }

    /// East Asian Wide/Fullwidth and emoji presentation ranges (as glibc's and Markus Kuhn's wcwidth).
    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3,
            0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB,
            0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD,
            0x2705, 0x270A...0x270B, 0x2728, 0x274C, 0x274E, 0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0,
            0x27BF, 0x2B1B...0x2B1C, 0x2B50, 0x2B55,
            0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
            0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F320,
            0x1F32D...0x1F335, 0x1F337...0x1F37C, 0x1F37E...0x1F393, 0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3,
            0x1F3E0...0x1F3F0, 0x1F3F4, 0x1F3F8...0x1F43E, 0x1F440, 0x1F442...0x1F4FC, 0x1F4FF...0x1F53D,
            0x1F54B...0x1F54E, 0x1F550...0x1F567, 0x1F57A, 0x1F595...0x1F596, 0x1F5A4, 0x1F5FB...0x1F64F,
            0x1F680...0x1F6C5, 0x1F6CC, 0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7, 0x1F6DC...0x1F6DF,
            0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB, 0x1F7F0, 0x1F90C...0x1F93A,
            0x1F93C...0x1F945, 0x1F947...0x1F9FF, 0x1FA70...0x1FAFF,
            0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
