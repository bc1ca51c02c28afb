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
