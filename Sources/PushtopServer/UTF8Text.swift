/// Strict UTF-8 decoding: invalid bytes are refused, never replaced with U+FFFD.
enum UTF8Text {
    /// The text of `bytes`, or `nil` when they are not valid UTF-8.
    static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
        if !bytes.contains(where: { $0 >= 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return String(decoding: bytes, as: UTF8.self)
            case .error: return nil
            }
        }
    }
}
