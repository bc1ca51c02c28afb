/// The report as Markdown, for an issue or a pull request: the totals, every failure (expected, got, the Pusher
/// document section, the frames both ways in a code block), then a table per group and what was skipped.
public enum ReportMarkdown {
    public static func render(_ report: ConformanceReport) -> String {
        let s = report.summary
        var out =
            "## pushtop conform\(report.kind == .client ? " --client" : ""): \(report.server.joined(separator: ", "))\n\n"
        out +=
            "**\(s.pass) passed, \(s.fail) failed** (must \(s.failedByLevel["must"] ?? 0), should "
            + "\(s.failedByLevel["should"] ?? 0), optional \(s.failedByLevel["optional"] ?? 0)), \(s.unsupported) "
            + "unsupported, \(s.skipped) skipped\(ReportText.notObserved(s)) of \(s.total) cases in \(String(format: "%.1f", report.seconds)) s "
            + "(suite \(report.suite), \(report.started)).\n"
        let failures = report.cases.filter { $0.result == .fail }.sorted { ($0.level, $0.id) < ($1.level, $1.id) }
        if !failures.isEmpty {
            out += "\n### Failures (\(failures.count))\n"
            for c in failures {
                out += "\n#### `\(c.id)` (\(c.level.rawValue.uppercased()))\n\n\(escape(c.title))\n\n"
                if let expected = c.expected, let got = c.got {
                    out += "- **Expected:** \(escape(expected))\n- **Got:** \(escape(got))\n"
                } else {
                    out += "- **Result:** \(escape(c.message))\n"
                }
                out +=
                    "- **Pusher's documentation:** [\(c.source.page): \(escape(c.source.section))](\(c.source.url))\n"
                if let evidence = c.evidence, !evidence.isEmpty {
                    out += "\n<details><summary>Frames (&gt;&gt; sent, &lt;&lt; received)</summary>\n\n```\n"
                    out += evidence.map { $0.replacingOccurrences(of: "```", with: "'''") }.joined(separator: "\n")
                    out += "\n```\n\n</details>\n"
                }
            }
        }
        out += "\n### By group\n\n| group | pass | fail | unsupported | skipped |\n|---|---|---|---|---|\n"
        var groups: [String] = []
        for c in report.cases where !groups.contains(c.group) { groups.append(c.group) }
        for group in groups {
            let cases = report.cases.filter { $0.group == group }
            func n(_ v: CaseVerdict) -> Int { cases.filter { $0.result == v }.count }
            out += "| \(group) | \(n(.pass)) | \(n(.fail)) | \(n(.unsupported)) | \(n(.skipped)) |\n"
        }
        let notRun = report.cases.filter { $0.result != .pass && $0.result != .fail }
        let reasons = Dictionary(grouping: notRun) { "\($0.result.rawValue): \($0.message)" }
        if !reasons.isEmpty {
            out += "\n### Not run\n\n"
            for (why, cases) in reasons.sorted(by: { $0.key < $1.key }) {
                out += "- \(cases.count) · \(escape(why)) (\(cases.map { "`\($0.id)`" }.joined(separator: ", ")))\n"
            }
        }
        return out
    }

    /// Text safe in a Markdown paragraph or table cell: no line breaks, `|` and `<` escaped.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "|", with: "\\|")
            .replacingOccurrences(of: "<", with: "&lt;")
    }
}
