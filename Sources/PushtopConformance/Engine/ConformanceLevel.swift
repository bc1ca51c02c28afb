/// How strongly Pusher's documentation asks for what a case checks.
public enum ConformanceLevel: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// The protocol page: a client breaks without it.
    case must
    /// Pusher's behaviour documented outside the protocol page (presence, the HTTP API, limits).
    case should
    /// A feature a server may not have at all; a server without it is reported as unsupported, not failed.
    case optional

    public static func < (a: ConformanceLevel, b: ConformanceLevel) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// What a case came to.
public enum CaseVerdict: String, Sendable, Hashable, Codable, CaseIterable {
    case pass
    case fail
    /// The server has none of an optional feature (and says so, or simply does not answer it).
    case unsupported
    /// Not run, with why: no webhook listener, not `--destructive`, fewer than two nodes.
    case skipped
    /// A client's case (`conform --client`) whose situation never came about: the client never did what the case
    /// needs (it has no private channel, it sent no client event) or the time limit ran out first.
    case notObserved = "not_observed"
}
