extension String {
    /// The string lower-cased; itself, with no copy, when it is ASCII with no upper-case letter, as hex digests and
    /// the HTTP API's parameter names almost always are (checked over its UTF-8 in place: a signed request checks
    /// several).
    package var lowercasedIfNeeded: String {
        var text = self
        let plain = text.withUTF8 { bytes in !bytes.contains { $0 >= 0x80 || (0x41...0x5A).contains($0) } }
        return plain ? self : lowercased()
    }
}
