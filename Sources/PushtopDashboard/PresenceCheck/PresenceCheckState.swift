import PushtopKit

/// The presence check's slice: for presence channels, the user ids the server holds (HTTP API), to mark the
/// members where the client's roster and the server's differ. Differences are judged by ``RosterAgreement``:
/// members who joined or left while a request was in flight are discounted, and a difference is only shown
/// once two consecutive answers agree on it.

public struct PresenceCheckState: Sendable {
    public struct Result: Sendable, Hashable {
        /// The server's user ids from the last answer that came (kept when a later request fails).
        public var serverUserIDs: Set<String>?
        /// Why the last request failed, `nil` when it succeeded.
        public var error: String?
        /// When ``serverUserIDs`` arrived.
        public var at: Double
    }

    /// What the members pane shows for a channel.
    public struct Judgement: Sendable, Equatable {
        /// Confirmed: held by the client only (ghosts) and by the server only (missing, sorted).
        public var ghosts: Set<String>
        public var missing: [String]
        /// Differences seen once and waiting for the next answer.
        public var suspects: Int
        /// When the answer judged was received.
        public var at: Double
    }

    /// Seconds between two checks of the shown channel.
    public static let interval = 5.0
    /// Seconds before asking again when the last answer raised suspects: a real difference then shows within
    /// 1.5 intervals, and a member event delayed by up to this long still discounts its member.
    public static let confirmationInterval = 2.5

    public internal(set) var results: [String: Result] = [:]
    /// Per channel, the rule that compares the client's changing roster with the server's answers.
    public internal(set) var agreements: [String: RosterAgreement<String>] = [:]
    var requestedAt: [String: Double] = [:]
    var inFlight: Set<String> = []

    public init() {}

    func due(_ channel: String, at now: Double) -> Bool {
        let wait =
            agreements[channel]?.hasSuspects == true
            ? PresenceCheckState.confirmationInterval : PresenceCheckState.interval
        return !inFlight.contains(channel) && now - (requestedAt[channel] ?? -.infinity) >= wait
    }

    mutating func started(_ channel: String, at now: Double) {
        inFlight.insert(channel)
        requestedAt[channel] = now
        agreements[channel, default: RosterAgreement()].requestSent()
    }

    /// A member of `channel` joined or left on the client's side.
    mutating func memberChanged(_ channel: String, userID: String) {
        agreements[channel]?.memberChanged(userID)
    }

    /// The client's roster of `channel` was rebuilt (subscribed again, or dropped): the check starts over.
    mutating func rosterReset(_ channel: String) {
        agreements[channel]?.reset()
        results[channel] = nil
    }

    /// Every roster was dropped (the connection was lost).
    mutating func rostersReset() {
        for channel in Array(agreements.keys) { agreements[channel]?.reset() }
        results.removeAll()
    }

    /// The server's answer; `clientUserIDs` is the client's roster now (members present, not those shown
    /// leaving).
    mutating func received(
        _ channel: String, userIDs: [String]?, error: String?, clientUserIDs: Set<String>?,
        at now: Double
    ) {
        inFlight.remove(channel)
        if let userIDs {
            results[channel] = Result(serverUserIDs: Set(userIDs), error: nil, at: now)
        } else {
            // A failed request keeps the last answer (the members pane labels its age) and says why.
            var result = results[channel] ?? Result(serverUserIDs: nil, error: nil, at: now)
            result.error = error ?? "the HTTP API failed"
            results[channel] = result
        }
        if let userIDs, let clientUserIDs {
            agreements[channel, default: RosterAgreement()].answered(remote: Set(userIDs), local: clientUserIDs)
        } else {
            agreements[channel]?.requestFailed()
        }
    }

    /// What the last answer says about `channel`, `nil` before any answer.
    public func judgement(_ channel: String) -> Judgement? {
        guard let result = results[channel], result.serverUserIDs != nil, let agreement = agreements[channel],
            agreement.verdict != .unknown
        else { return nil }
        return Judgement(
            ghosts: agreement.ghosts, missing: agreement.missing.sorted(),
            suspects: agreement.suspectGhosts.count + agreement.suspectMissing.count, at: result.at)
    }
}
