/// Display-column measurement with `wcwidth` semantics: CJK and emoji take two columns, combining marks and
/// zero-width characters none, control characters are replaced before drawing.
///
/// Curses places text by the C library's `wcwidth`; measuring the same way keeps every pane's text inside
/// its borders (a `String.count` would be wrong for `"東京"`, `"é"` written as e + U+0301, or `"🚀"`).
public enum DisplayWidth {
    /// The columns one scalar takes: 0, 1 or 2.
    @inline(__always)
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x7F { return v >= 0x20 ? 1 : 0 }
        if v < 0xA0 { return 0 }
        if v < 0x300 { return 1 }
        return slowWidth(v, scalar)
    }

    /// The columns a string takes (the sum of its scalars' widths; controls count as the replacement's width).
    public static func of(_ text: String) -> Int {
        var total = 0
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v >= 0x20 && v < 0x7F {
                total += 1
            } else if v < 0x20 || v == 0x7F {
                total += 1  // drawn as a replacement character by `sanitized`
            } else {
                total += of(scalar)
            }
        }
        return total
    }

    /// The text with control characters (newlines, tabs, escapes) replaced, so that one line stays one line.
    public static func sanitized(_ text: String) -> String {
        var needs = false
        for b in text.utf8 where b < 0x20 || b == 0x7F {
            needs = true
            break
        }
        guard needs else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: out.append(" ")
            case 0..<0x20, 0x7F: out.append("\u{FFFD}")
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// The longest prefix of `text` (sanitized) that fits in `columns`, and its width.
    ///
    /// A wide character that would straddle the limit is left out; combining marks stay with their base.
    public static func clip(_ text: String, to columns: Int) -> (text: String, width: Int) {
        guard columns > 0 else { return ("", 0) }
        let clean = sanitized(text)
        // Fast path: ASCII only.
        let utf8 = clean.utf8
        if utf8.count <= columns, utf8.allSatisfy({ $0 < 0x80 }) {
            return (clean, utf8.count)
        }
        var width = 0
        var out = String.UnicodeScalarView()
        for scalar in clean.unicodeScalars {
            let w = of(scalar)
            if width + w > columns { break }
            width += w
            out.append(scalar)
        }
        return (String(out), width)
    }

    /// `text` clipped to `columns`, with `…` as the last column when something was cut.
    public static func truncate(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        let full = of(sanitized(text))
        if full <= columns { return sanitized(text) }
        return clip(text, to: columns - 1).text + "…"
    }

    /// `text` clipped or padded with spaces to exactly `columns`.
    public static func pad(_ text: String, to columns: Int) -> String {
        let (clipped, width) = clip(text, to: columns)
        return width < columns ? clipped + String(repeating: " ", count: columns - width) : clipped
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
