/// The presence check's slice: for presence channels, the user ids the server holds (HTTP API), to mark the
/// members where the client's roster and the server's differ.
public struct PresenceCheckState: Sendable {
    public struct Result: Sendable, Hashable {
        /// The server's user ids, when the last request succeeded.
        public var serverUserIDs: Set<String>?
        public var error: String?
        public var at: Double
    }

    /// Seconds between two checks of the shown channel.
    public static let interval = 5.0

    public internal(set) var results: [String: Result] = [:]
    var requestedAt: [String: Double] = [:]
    var inFlight: Set<String> = []

    public init() {}

    func due(_ channel: String, at now: Double) -> Bool {
        !inFlight.contains(channel) && now - (requestedAt[channel] ?? -.infinity) >= PresenceCheckState.interval
    }

    mutating func started(_ channel: String, at now: Double) {
        inFlight.insert(channel)
        requestedAt[channel] = now
    }

    mutating func received(_ channel: String, userIDs: [String]?, error: String?, at now: Double) {
        inFlight.remove(channel)
        results[channel] = Result(serverUserIDs: userIDs.map(Set.init), error: userIDs == nil ? error : nil, at: now)
    }

    /// Members the client holds that the server does not (ghosts), and those the server holds that the client
    /// lacks (missing), for a roster's current user ids.
    public func differences(_ channel: String, clientUserIDs: Set<String>) -> (ghosts: Set<String>, missing: [String])? {
        guard let server = results[channel]?.serverUserIDs else { return nil }
        return (clientUserIDs.subtracting(server), server.subtracting(clientUserIDs).sorted())
    }
}
