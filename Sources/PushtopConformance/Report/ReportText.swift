import Foundation

/// The report for people: failures first (expected, got, the frames), then a line per group, then the totals.
public enum ReportText {
    public static func render(_ report: ConformanceReport, verbose: Bool = false) -> String {
        var out = failures(report)
        if verbose {
            for c in report.cases where c.result != .fail {
                out += "\(symbol(c.result)) \(c.id) [\(c.level.rawValue)] \(c.message)\n"
            }
            out += "\n"
        }
        out += groupTable(report)
        out += skippedAndUnsupported(report)
        out += totals(report)
        return out
    }

    /// Each failure in full: what was expected and what came, the source, the frames.
    private static func failures(_ report: ConformanceReport) -> String {
        var out = ""
        let failures = report.cases.filter { $0.result == .fail }
        guard !failures.isEmpty else { return out }
        out += "FAILURES (\(failures.count))\n\n"
        for c in failures.sorted(by: { ($0.level, $0.id) < ($1.level, $1.id) }) {
            out += "✗ \(c.id) [\(c.level.rawValue.uppercased())]\n"
            out += "  \(c.title)\n"
            if let expected = c.expected, let got = c.got {
                out += "  expected: \(expected)\n  got:      \(got)\n"
            } else {
                out += "  \(c.message)\n"
            }
            out += "  source: \(c.source.page), \(c.source.section) <\(c.source.url)>\n"
            if let evidence = c.evidence, !evidence.isEmpty {
                out += "  frames (>> sent, << received):\n"
                for line in evidence { out += "    \(line)\n" }
            }
            out += "\n"
        }
        return out
    }

    /// A line per group, in the order the groups first appear: its counts by verdict.
    private static func groupTable(_ report: ConformanceReport) -> String {
        var out = "GROUP".padding(toLength: 22, withPad: " ", startingAt: 0) + "pass  fail  unsupported  skipped\n"
        var groups: [String] = []
        for c in report.cases where !groups.contains(c.group) { groups.append(c.group) }
        for group in groups {
            let cases = report.cases.filter { $0.group == group }
            func n(_ v: CaseVerdict) -> String { String(cases.filter { $0.result == v }.count) }
            out +=
                group.padding(toLength: 22, withPad: " ", startingAt: 0)
                + n(.pass).padding(toLength: 6, withPad: " ", startingAt: 0)
                + n(.fail).padding(toLength: 6, withPad: " ", startingAt: 0)
                + n(.unsupported).padding(toLength: 13, withPad: " ", startingAt: 0) + n(.skipped) + "\n"
        }
        return out
    }

    /// Why cases were skipped, and which features the server does not support, with their counts.
    private static func skippedAndUnsupported(_ report: ConformanceReport) -> String {
        var out = ""
        let skipped = report.cases.filter { $0.result == .skipped }
        let reasons = Dictionary(grouping: skipped, by: \.message)
        if !reasons.isEmpty {
            out += "\nskipped:\n"
            for (why, cases) in reasons.sorted(by: { $0.key < $1.key }) { out += "  \(cases.count) · \(why)\n" }
        }
        let unobserved = report.cases.filter { $0.result == .notObserved }
        if !unobserved.isEmpty {
            out += "\nnot observed:\n"
            for c in unobserved { out += "  ? \(c.id): \(c.message)\n" }
        }
        let unsupported = Dictionary(grouping: report.cases.filter { $0.result == .unsupported }) {
            $0.message.components(separatedBy: ":").first ?? $0.message
        }
        if !unsupported.isEmpty {
            out += "\nunsupported:\n"
            for (feature, cases) in unsupported.sorted(by: { $0.key < $1.key }) {
                out += "  \(cases.count) · \(cases[0].message)\n"
                _ = feature
            }
        }
        return out
    }

    private static func totals(_ report: ConformanceReport) -> String {
        let s = report.summary
        return "\n\(s.pass) passed, \(s.fail) failed (must \(s.failedByLevel["must"] ?? 0), should "
            + "\(s.failedByLevel["should"] ?? 0), optional \(s.failedByLevel["optional"] ?? 0)), \(s.unsupported) "
            + "unsupported, \(s.skipped) skipped\(notObserved(s)) of \(s.total) cases in "
            + "\(String(format: "%.1f", report.seconds)) s; \(report.messages) messages; "
            + "\(report.subject) \(report.server.joined(separator: ", "))\n"
    }

    /// `, N not observed` when a client run has such cases.
    static func notObserved(_ summary: Summary) -> String {
        summary.notObserved.map { ", \($0) not observed" } ?? ""
    }

    /// The sign of a verdict in text reports: ✓ ✗ – · ?.
    public static func symbol(_ verdict: CaseVerdict) -> String {
        switch verdict {
        case .pass: return "✓"
        case .fail: return "✗"
        case .unsupported: return "–"
        case .skipped: return "·"
        case .notObserved: return "?"
        }
    }
}
