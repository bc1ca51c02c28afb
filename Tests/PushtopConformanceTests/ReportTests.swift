import Foundation
import Testing

@testable import PushtopConformance

/// Reports are values: JSON with a stable schema, JUnit for CI, text for people, and a diff between two runs.
@Suite struct ReportTests {
    static let source = DocSource(page: "P", section: "S", url: "https://example.invalid/#s")

    static func record(_ id: String, _ result: CaseVerdict, _ level: ConformanceLevel = .must, message: String = "m")
        -> CaseRecord
    {
        CaseRecord(
            id: id, group: String(id.prefix { $0 != "." }), level: level, result: result, message: message,
            title: "Title of \(id).", source: source, seconds: 0.25,
            evidence: result == .fail ? [">>  0.001s {\"event\":\"x\"}"] : nil)
    }

    static func report(_ cases: [CaseRecord], server: String) -> ConformanceReport {
        ConformanceReport(
            suite: "1.0", server: [server], started: "2026-11-26T00:00:00Z", seconds: 1.5, messages: 10,
            cases: cases)
    }

    @Test func theJSONSchemaHasTheDocumentedFields() throws {
        let report = Self.report(
            [
                Self.record("a.one", .pass), Self.record("a.two", .fail),
                Self.record("b.three", .unsupported, .optional), Self.record("b.four", .skipped),
            ],
            server: "s")
        let data = try JSONEncoder().encode(report)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["schema"] as? Int == 1)
        let summary = try #require(json["summary"] as? [String: Any])
        #expect(summary["total"] as? Int == 4)
        #expect(summary["pass"] as? Int == 1)
        #expect(summary["fail"] as? Int == 1)
        #expect(summary["unsupported"] as? Int == 1)
        #expect(summary["skipped"] as? Int == 1)
        let first = try #require((json["cases"] as? [[String: Any]])?.first)
        for key in ["id", "group", "level", "result", "message"] { #expect(first[key] != nil, "\(key)") }
        #expect(first["level"] as? String == "must")
        #expect(first["result"] as? String == "pass")
        #expect(try JSONDecoder().decode(ConformanceReport.self, from: data) == report)
        #expect(!report.passed)
    }

    @Test func junitEscapesAndCounts() {
        let failing = Self.record("x.bad", .fail, message: #"expected <a> & "b"; got 'c'"#)
        let xml = ReportJUnit.render(
            Self.report(
                [
                    failing, Self.record("x.good", .pass),
                    Self.record("y.none", .unsupported, .optional),
                ], server: "s"))
        #expect(xml.contains(#"<testsuite name="x" tests="2" failures="1" skipped="0""#))
        #expect(xml.contains("expected &lt;a&gt; &amp; &quot;b&quot;; got &apos;c&apos;"))
        #expect(xml.contains(#"<skipped message="unsupported: m"/>"#))
        #expect(!xml.contains("<a>"))
    }

    @Test func textPutsFailuresFirstWithTheirEvidence() {
        let text = ReportText.render(
            Self.report([Self.record("a.ok", .pass), Self.record("a.bad", .fail)], server: "s"))
        #expect(text.hasPrefix("FAILURES (1)"))
        #expect(text.contains("✗ a.bad [MUST]"))
        #expect(text.contains(#"{"event":"x"}"#))
        #expect(text.contains("1 passed, 1 failed (must 1"))
    }

    static func failure() -> CaseRecord {
        var failing = record("connection.unknown-key-4001", .fail, message: "expected pusher:error 4001; got x")
        failing.expected = "pusher:error 4001 within 3 s"
        failing.got = #"pusher:error 4006 "bad | version", then the TCP connection dropped without a close frame"#
        failing.evidence = [
            ">>  0.001s {\"event\":\"pusher:ping\"}", "<<  0.002s {\"event\":\"pusher:error\"}",
            "<<  0.003s [connection ended: TCP connection closed]",
        ]
        return failing
    }

    @Test func textSaysExpectedGotTheSectionAndTheFramesBothWays() {
        let text = ReportText.render(Self.report([Self.failure()], server: "s"))
        #expect(text.contains("  expected: pusher:error 4001 within 3 s\n"), "\(text)")
        #expect(text.contains("  got:      pusher:error 4006 \"bad | version\", then the TCP connection dropped"))
        #expect(text.contains("  source: P, S <https://example.invalid/#s>"))
        #expect(text.contains("  frames (>> sent, << received):\n    >>  0.001s"))
        #expect(text.contains("    <<  0.003s [connection ended: TCP connection closed]"))
    }

    @Test func markdownIsForAnIssue() {
        let markdown = ReportMarkdown.render(
            Self.report(
                [
                    Self.failure(), Self.record("a.ok", .pass),
                    Self.record("b.later", .skipped, message: "run with --long"),
                ],
                server: "ws.example:6001"))
        #expect(markdown.hasPrefix("## pushtop conform: ws.example:6001\n\n**1 passed, 1 failed** (must 1"))
        #expect(markdown.contains("#### `connection.unknown-key-4001` (MUST)"))
        #expect(markdown.contains("- **Expected:** pusher:error 4001 within 3 s\n"))
        #expect(markdown.contains(#"- **Got:** pusher:error 4006 "bad \| version", then"#), "\(markdown)")
        #expect(markdown.contains("- **Pusher's documentation:** [P: S](https://example.invalid/#s)"))
        #expect(markdown.contains("```\n>>  0.001s {\"event\":\"pusher:ping\"}\n<<  0.002s"))
        #expect(markdown.contains("| connection | 0 | 1 | 0 | 0 |"))
        #expect(markdown.contains("- 1 · skipped: run with --long (`b.later`)"))
    }

    @Test func theDiffNamesWhatBreaksAndWhatImproves() {
        let a = Self.report(
            [
                Self.record("p.same", .pass), Self.record("p.breaks", .pass), Self.record("p.fixed", .fail),
                Self.record("o.gone", .pass, .optional),
            ], server: "soketi")
        let b = Self.report(
            [
                Self.record("p.same", .pass), Self.record("p.breaks", .fail, message: "echoed"),
                Self.record("p.fixed", .pass), Self.record("o.gone", .unsupported, .optional),
            ],
            server: "reverb")
        let diff = ReportDiff(from: a, to: b)
        #expect(diff.unchanged == 1)
        #expect(diff.changes.filter(\.isRegression).map(\.id) == ["p.breaks", "o.gone"])
        let text = diff.render()
        #expect(text.contains("Moving an app from soketi to reverb"))
        #expect(text.contains("What your app may notice (2)"))
        #expect(text.contains("p.breaks [must]: works on soketi, fails on reverb: echoed"))
        #expect(text.contains("Better on reverb (1)"))
        #expect(ReportDiff(from: a, to: a).render().contains("Nothing changes"))
    }
}
