/// What changes for an app that moves from server A to server B, case by case: a pure function of two reports.
public struct ReportDiff: Sendable, Hashable {
    /// One case whose result differs.
    public struct Change: Sendable, Hashable {
        public var id: String
        public var level: ConformanceLevel
        public var title: String
        public var before: CaseVerdict?
        public var after: CaseVerdict?
        public var beforeMessage: String
        public var afterMessage: String

        /// Worse on B: a pass (or unsupported) that fails, a feature that goes away.
        public var isRegression: Bool {
            (after == .fail && before != .fail) || (before == .pass && after == .unsupported)
        }
    }

    public var from: [String]
    public var to: [String]
    public var changes: [Change]
    /// Cases that pass on both.
    public var unchanged: Int

    public init(from a: ConformanceReport, to b: ConformanceReport) {
        self.from = a.server
        self.to = b.server
        let before = Dictionary(a.cases.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(b.cases.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var ids = a.cases.map(\.id)
        for c in b.cases where before[c.id] == nil { ids.append(c.id) }
        var changes: [Change] = []
        var same = 0
        for id in ids {
            let x = before[id], y = after[id]
            if x?.result == y?.result {
                same += 1
                continue
            }
            let any = (y ?? x)!
            changes.append(
                Change(
                    id: id, level: any.level, title: any.title, before: x?.result, after: y?.result,
                    beforeMessage: x?.message ?? "", afterMessage: y?.message ?? ""))
        }
        self.changes = changes
        self.unchanged = same
    }

    /// Words a developer understands: what breaks, what is new, what is no longer checked.
    public func render() -> String {
        let a = from.joined(separator: ", "), b = to.joined(separator: ", ")
        var out = "Moving an app from \(a) to \(b):\n\n"
        let regressions = changes.filter(\.isRegression)
        let gains = changes.filter { !$0.isRegression && ($0.after == .pass) }
        let other = changes.filter { !$0.isRegression && $0.after != .pass }
        if regressions.isEmpty && gains.isEmpty && other.isEmpty {
            return out + "Nothing changes: the same \(unchanged) cases give the same results on both.\n"
        }
        if !regressions.isEmpty {
            out += "What your app may notice (\(regressions.count)):\n"
            for c in regressions {
                out +=
                    "  ✗ \(c.title)\n    \(c.id) [\(c.level.rawValue)]: \(word(c.before)) on \(a), \(word(c.after)) on \(b)"
                out += c.afterMessage.isEmpty ? "\n" : ": \(c.afterMessage)\n"
            }
            out += "\n"
        }
        if !gains.isEmpty {
            out += "Better on \(b) (\(gains.count)):\n"
            for c in gains {
                out +=
                    "  ✓ \(c.title)\n    \(c.id): \(word(c.before)) on \(a)\(c.beforeMessage.isEmpty ? "" : " (\(c.beforeMessage))")\n"
            }
            out += "\n"
        }
        if !other.isEmpty {
            out += "Not compared (\(other.count)):\n"
            for c in other {
                out += "  · \(c.id): \(word(c.before)) on \(a), \(word(c.after)) on \(b)"
                out += c.afterMessage.isEmpty ? "\n" : " (\(c.afterMessage))\n"
            }
            out += "\n"
        }
        return out + "\(unchanged) cases give the same result on both.\n"
    }

    func word(_ verdict: CaseVerdict?) -> String {
        switch verdict {
        case .pass?: return "works"
        case .fail?: return "fails"
        case .unsupported?: return "is not supported"
        case .skipped?: return "was not checked"
        case .notObserved?: return "was not observed"
        case nil: return "is not in that run"
        }
    }
}
