/// The user a connection is signed in as: the `user_data` the app's server signed.
public struct SignedInUser: Sendable, Hashable {
    /// The user id (`user_data.id`).
    public var id: String
    /// The `user_data` JSON text, exactly as signed.
    public var userData: String
    /// The user ids this user watches (`user_data.watchlist`), possibly empty.
    public var watchlist: [String]
    /// `user_data.user_info`, when given.
    public var userInfo: JSONValue?

    /// A user with the given fields, taken as they are (``init(userData:)`` reads them from `user_data`).
    public init(id: String, userData: String, watchlist: [String] = [], userInfo: JSONValue? = nil) {
        self.id = id
        self.userData = userData
        self.watchlist = watchlist
        self.userInfo = userInfo
    }

    /// Reads `user_data` as Pusher defines it: a JSON object with a non-empty string `id`, an optional
    /// `watchlist` (array of user ids) and optional `user_info`.
    /// - Throws: ``UserDataError`` saying what is wrong.
    public init(userData text: String) throws(UserDataError) {
        guard let value = JSONValue.parseIfJSON(text), case .object(let fields) = value else {
            throw .notAnObject
        }
        guard case .string(let id)? = fields["id"] else { throw .missingID }
        guard !id.isEmpty else { throw .missingID }
        var watchlist: [String] = []
        switch fields["watchlist"] {
        case nil, .null?: break
        case .array(let items)?:
            for item in items {
                guard case .string(let watched) = item else { throw .invalidWatchlist }
                watchlist.append(watched)
            }
        default: throw .invalidWatchlist
        }
        self.init(id: id, userData: text, watchlist: watchlist, userInfo: fields["user_info"])
    }
}

/// What is wrong with a `user_data` document.
public enum UserDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not a JSON object.
    case notAnObject
    /// There is no non-empty string `id`.
    case missingID
    /// `watchlist` is not an array of strings.
    case invalidWatchlist

    public var description: String {
        switch self {
        case .notAnObject: return "user_data is not a JSON object"
        case .missingID: return "user_data has no \"id\" string (it must be a non-empty string)"
        case .invalidWatchlist: return "user_data \"watchlist\" must be an array of user id strings"
        }
    }
}
