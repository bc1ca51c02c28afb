/// The result of a run: every case with its verdict, and the counts. Its JSON form (`--format json`) is a stable
/// schema: new fields may be added, none renamed or removed within `schema` 1.
public struct ConformanceReport: Codable, Sendable, Hashable {
    /// The schema's version.
    public var schema: Int = 1
    /// The catalogue's version (``ConformanceSuite/version``).
    public var suite: String
    /// The nodes tested, as given.
    public var server: [String]
    /// When the run started (ISO 8601).
    public var started: String
    /// Seconds the run took.
    public var seconds: Double
    /// Billable messages the run caused (events published and messages received, pings and pongs aside).
    public var messages: Int
    public var cases: [CaseRecord]
    public var summary: Summary
    /// What was judged: a server (`pushtop conform`; absent in reports before clients were judged) or an app's
    /// client (`pushtop conform --client`, where ``server`` names the upstream it was relayed to).
    public var kind: Kind?
    /// For a client run: the clients that connected, as their upgrade requests named them (path and query).
    public var clients: [String]?

    /// What a report judged.
    public enum Kind: String, Codable, Sendable, Hashable {
        case server
        case client
    }

    /// How the totals line names what ``server`` lists.
    public var subject: String { kind == .client ? "client relayed to" : "server" }

    public init(suite: String, server: [String], started: String, seconds: Double, messages: Int, cases: [CaseRecord]) {
        self.suite = suite
        self.server = server
        self.started = started
        self.seconds = seconds
        self.messages = messages
        self.cases = cases
        self.summary = Summary(cases)
    }

    /// Whether no case failed (unsupported, skipped and not observed are not failures).
    public var passed: Bool { summary.fail == 0 }
}

/// One case's result.
public struct CaseRecord: Codable, Sendable, Hashable {
    public var id: String
    public var group: String
    public var level: ConformanceLevel
    public var result: CaseVerdict
    /// What was seen (pass), what was expected and got (fail), why (unsupported, skipped).
    public var message: String
    public var title: String
    public var source: DocSource
    public var seconds: Double
    /// For a failure: the frames (and requests) that show it.
    public var evidence: [String]?
    /// For a failure: what Pusher's documentation expects.
    public var expected: String?
    /// For a failure: what the server did (what came, never "nothing" when something came).
    public var got: String?
    /// Billable messages the case caused (events published and messages received, pings and pongs aside), as the report's total counts them.
    public var messages: Int?

    public init(
        id: String, group: String, level: ConformanceLevel, result: CaseVerdict, message: String, title: String,
        source: DocSource, seconds: Double, evidence: [String]? = nil, expected: String? = nil, got: String? = nil
    ) {
        self.expected = expected
        self.got = got
        self.id = id
        self.group = group
        self.level = level
        self.result = result
        self.message = message
        self.title = title
        self.source = source
        self.seconds = seconds
        self.evidence = evidence
    }
}

/// The counts of a run.
public struct Summary: Codable, Sendable, Hashable {
    public var total: Int
    public var pass: Int
    public var fail: Int
    public var unsupported: Int
    public var skipped: Int
    /// Client cases whose situation never came about (`conform --client`); absent from server reports.
    public var notObserved: Int?
    /// Failures per level (`must`, `should`, `optional`).
    public var failedByLevel: [String: Int]

    public init(_ cases: [CaseRecord]) {
        total = cases.count
        pass = cases.filter { $0.result == .pass }.count
        fail = cases.filter { $0.result == .fail }.count
        unsupported = cases.filter { $0.result == .unsupported }.count
        skipped = cases.filter { $0.result == .skipped }.count
        let notObserved = cases.filter { $0.result == .notObserved }.count
        self.notObserved = notObserved > 0 ? notObserved : nil
        var byLevel: [String: Int] = [:]
        for level in ConformanceLevel.allCases {
            byLevel[level.rawValue] = cases.filter { $0.level == level && $0.result == .fail }.count
        }
        failedByLevel = byLevel
    }
}
