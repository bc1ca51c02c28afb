/// A deviation from the protocol that pushtop's own tests reproduce in front of a real server (a rewriting proxy, a
/// server started with limits that break a rule, or nodes that do not form a cluster), and the cases it must fail:
/// the evidence that a case can fail at all. `docs/conform-cases.md` lists them beside each case.
public struct CaseDeviation: Sendable, Hashable {
    /// A stable, kebab-case name (the test's argument).
    public let name: String
    /// What the deviant server does, in one sentence.
    public let does: String
    /// The cases that must fail, and no other case of the run.
    public let fails: [String]
    /// The cases the run takes (ids or groups); `nil`: the groups of the failed cases.
    public let runs: [String]?
    /// The test that shows it (`Suite/test`).
    public let test: String

    init(_ name: String, _ does: String, fails: [String], runs: [String]? = nil, test: String = CaseDeviations.table) {
        self.name = name
        self.does = does
        self.fails = fails
        self.runs = runs
        self.test = test
    }

    /// The cases or groups the run takes.
    public var selection: [String] {
        if let runs { return runs }
        var groups: [String] = []
        for id in fails {
            let group = String(id.prefix { $0 != "." })
            if !groups.contains(group) { groups.append(group) }
        }
        return groups
    }
}
