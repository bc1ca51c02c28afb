/// One named check of a server's behaviour: what it checks, how strongly Pusher documents it, and where.
public struct ConformanceCase: Sendable, Identifiable {
    /// A stable id, `group.what-it-checks` (e.g. `presence.member-added-once-per-user`): results and diffs key on it.
    public let id: String
    /// How strongly Pusher's documentation asks for it.
    public let level: ConformanceLevel
    /// The documentation it follows.
    public let source: DocSource
    /// One sentence: what a server must do to pass.
    public let title: String
    /// What the run must have for the case to run at all (a webhook listener, `--destructive`, several nodes).
    public let needs: Set<CaseRequirement>
    /// For optional features: the feature, so that a server without it reports it unsupported in every case.
    public let feature: ServerFeature?
    /// Billable messages the case sends or receives, at most (Pusher bills messages): printed before a run, and
    /// held to by a full run against `serve` (each case's count is in the report).
    public let messages: Int
    /// What a case that declares nothing may cost: a few connections, their handshakes and a handful of events
    /// (14 at most against `serve`).
    static let defaultMessages = 20
    /// For a case that waits on the server's own clocks: how long, at most. It runs only with `--long`.
    public let serverWait: ServerWait?
    let body: @Sendable (CaseContext) async throws -> CaseOutcome

    /// The group: the id up to its first dot.
    public var group: String { String(id.prefix { $0 != "." }) }

    init(
        _ id: String, _ level: ConformanceLevel, _ source: DocSource, _ title: String,
        needs: Set<CaseRequirement> = [], feature: ServerFeature? = nil, messages: Int = defaultMessages,
        serverWait: ServerWait? = nil, body: @escaping @Sendable (CaseContext) async throws -> CaseOutcome
    ) {
        self.id = id
        self.level = level
        self.source = source
        self.title = title
        self.needs = serverWait == nil ? needs : needs.union([.long])
        self.serverWait = serverWait
        self.feature = feature
        self.messages = messages
        self.body = body
    }
}

/// What a case needs from the run besides a reachable server with its key and secret.
public enum CaseRequirement: String, Sendable, Hashable, Codable {
    /// `--webhook-listen`: an address where the server posts webhooks.
    case webhooks
    /// `--destructive`: many connections or a lot of traffic.
    case destructive
    /// Two `--node`s or more.
    case cluster
    /// `--long`: it waits on the server's own clocks (idle ping, close after an unanswered ping, webhook retries).
    case long
}

/// An optional feature of a Pusher server: a case of one reports `unsupported` on a server that has none of it.
public enum ServerFeature: String, Sendable, Hashable, Codable, CaseIterable {
    case userSignIn = "user sign-in"
    case serverToUser = "events to users (#server-to-user-)"
    case watchlist = "watchlists"
    case terminateConnections = "terminate_connections"
    case cacheChannels = "cache channels"
    case subscriptionCount = "pusher:subscription_count"
    case encryptedChannels = "private-encrypted channels"
    case webhooks = "webhooks"
}

/// How a case ended when it did not fail (failures are thrown as ``CaseFailure``).
public enum CaseOutcome: Sendable, Hashable {
    /// Passed; the message says what was seen (and which choice the server made where the docs leave one).
    case pass(String)
    /// The server has none of the feature; the message says how that showed.
    case unsupported(String)
    /// Not run; the message says why.
    case skipped(String)
}

/// A case's failure: what Pusher's documentation expects, what the server did, and the frames that show it.
public struct CaseFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var expected: String
    public var got: String
    public var evidence: [String]

    public init(expected: String, got: String, evidence: [String] = []) {
        self.expected = expected
        self.got = got
        self.evidence = evidence
    }

    public var description: String { "expected \(expected); got \(got)" }
}
