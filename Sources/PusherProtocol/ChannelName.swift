/// Pusher's rules for channel names.
///
/// A name is 1 to 164 characters of `A-Z a-z 0-9 _ - = @ , . ;`. Names starting with `#` are the server's
/// (`#server-to-user-…`), and `private-encrypted-cache-` is the only allowed mix of cache and encryption.
public enum ChannelName {
    /// The longest channel name Pusher accepts, in characters.
    public static let maxLength = 164

    /// Why a name is refused, in words a person can act on.
    public enum ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
        case empty
        case tooLong(length: Int)
        case invalidCharacter(Character, position: Int)
        case reserved(String)

        public var description: String {
            switch self {
            case .empty:
                return "channel name is empty"
            case .tooLong(let length):
                return "channel name is \(length) characters long; the limit is \(ChannelName.maxLength)"
            case .invalidCharacter(let c, let position):
                return "channel name has '\(c)' at position \(position); allowed are A-Z a-z 0-9 _ - = @ , . ;"
            case .reserved(let why):
                return "channel name is reserved: \(why)"
            }
        }
    }

    /// Checks a channel name.
    /// - Throws: ``ValidationError`` saying why the name is refused.
    public static func validate(_ name: String) throws(ValidationError) {
        if name.isEmpty { throw .empty }
        var position = 0
        for scalar in name.unicodeScalars {
            position += 1
            if !isAllowed(scalar) {
                throw .invalidCharacter(Character(scalar), position: position)
            }
        }
        if position > maxLength { throw .tooLong(length: position) }
        if name.hasPrefix("private-encrypted-") && name.count == "private-encrypted-".count {
            throw .reserved("'private-encrypted-' needs a name after the prefix")
        }
    }

    /// Whether a name passes ``validate(_:)``.
    public static func isValid(_ name: String) -> Bool {
        (try? validate(name)) != nil
    }

    private static func isAllowed(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-", "=", "@", ",", ".", ";": return true
        default: return false
        }
    }
}
