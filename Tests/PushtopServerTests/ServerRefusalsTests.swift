import Testing

@testable import PushtopServer

/// The server-level count of strangers and how their input reaches a log line.
struct ServerRefusalsTests {
    @Test func everyReasonIsInTheExpositionFromTheStart() {
        let refusals = ServerRefusals()
        refusals.count(.unknownKey)
        refusals.count(.unknownKey)
        let lines = refusals.exposition.split(separator: "\n")
        #expect(lines.contains("pushtop_refused_total{reason=\"unknown_key\"} 2"))
        #expect(lines.contains("pushtop_refused_total{reason=\"unknown_app\"} 0"))
        #expect(lines.contains("# TYPE pushtop_refused_total counter"))
    }

    @Test func aStrangersTextIsPrintableAndCut() {
        #expect(StrangerText.printable("a\u{1B}[31mb") == #"a\u{1b}[31mb"#)
        #expect(StrangerText.printable("line\nforged=1") == #"line\u{a}forged=1"#)
        #expect(StrangerText.printable("say \"hi\" \\ ok") == #"say \"hi\" \\ ok"#)
        #expect(StrangerText.printable("evil\u{202E}txt") == #"evil\u{202e}txt"#)
        let long = StrangerText.printable(String(repeating: "k", count: 300))
        #expect(long == String(repeating: "k", count: StrangerText.maxLoggedCharacters) + "…")
        // A path is logged the same way, with a longer limit: 200 of its characters, then "…".
        let path = StrangerText.printable("/apps/1/\u{7F}" + String(repeating: "p", count: 300), limit: 200)
        #expect(path == #"/apps/1/\u{7f}"# + String(repeating: "p", count: 191) + "…")
    }
}
