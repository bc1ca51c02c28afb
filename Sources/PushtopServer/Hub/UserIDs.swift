import PusherProtocol

/// Pusher's rules for user ids (the server SDKs' `validate_user_id`): 1 to 200 characters of the channel-name
/// alphabet `A-Z a-z 0-9 _ - = @ , . ;`.
enum UserIDs {
    static let maxLength = 200

    /// Why a user id is refused, or `nil` when it is valid.
    static func problem(_ id: String) -> String? {
        if id.isEmpty { return "user id is empty" }
        if id.count > maxLength { return "user id is \(id.count) characters long; the limit is \(maxLength)" }
        for scalar in id.unicodeScalars where !isAllowed(scalar) {
            return "user id has '\(Character(scalar))'; allowed are A-Z a-z 0-9 _ - = @ , . ;"
        }
        return nil
    }

    /// The user id of a `#server-to-user-{id}` channel name, or `nil` for other names.
    static func ofServerToUserChannel(_ name: String) -> String? {
        guard name.hasPrefix(PusherEventName.serverToUserPrefix) else { return nil }
        return String(name.dropFirst(PusherEventName.serverToUserPrefix.count))
    }

    private static func isAllowed(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-", "=", "@", ",", ".", ";": return true
        default: return false
        }
    }
}
