/// Checks that bytes are well-formed UTF-8 (RFC 3629) without building a `String`.
///
/// A WebSocket text frame must be UTF-8; the client checks each frame with this before decoding it from its
/// bytes, so the check costs no allocation. Pure ASCII, the usual case, is one comparison per byte.
public enum UTF8Validation {
    /// Whether `bytes` are well-formed UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF, no
    /// truncated sequence.
    public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var i = 0
        while i < count {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard i + length <= count else { return false }
            let second = bytes[i + 1]
            guard second >= low, second <= high else { return false }
            var k = 2
            while k < length {
                guard bytes[i + k] & 0xC0 == 0x80 else { return false }
                k += 1
            }
            i += length
        }
        return true
    }

    /// The text of `bytes`, or `nil` when they are not well-formed UTF-8: strict decoding, where
    /// `String(decoding:as:)` would quietly put U+FFFD in place of bad bytes (and publish altered data).
    public static func string<Bytes: Collection<UInt8>>(validating bytes: Bytes) -> String? {
        let valid =
            bytes.withContiguousStorageIfAvailable { isValid(UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes { isValid($0) }
        return valid ? String(decoding: bytes, as: UTF8.self) : nil
    }
}
