import Foundation
import PushtopTestSupport
import Testing

/// `pushtop COMMAND --help` at 80 columns: the discussion is written as paragraphs and wrapped once, by the
/// argument parser, so no line of it is broken short in the middle of a sentence ("signs\nany private or\npresence").
@Suite(.timeLimit(.minutes(1))) struct HelpWrappingTests {
    /// The lines of the overview block (abstract and discussion): from `OVERVIEW:` up to `USAGE:`.
    static func overview(_ help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("OVERVIEW:") }) else { return [] }
        let end = lines[start...].firstIndex(where: { $0.hasPrefix("USAGE:") }) ?? lines.endIndex
        return Array(lines[start..<end])
    }

    /// Places where a line ends although the next line's first word would have fitted on it within `columns`: a
    /// break that the parser's greedy wrapping never makes, so a hard line break inside a sentence. List items
    /// (a next line indented or starting with "- ") and lines ending in ":" are intended breaks; a list item
    /// that the parser had to wrap (its continuation not indented) counts as ragged too.
    static func raggedBreaks(_ lines: [String], columns: Int) -> [String] {
        var ragged: [String] = []
        for (line, next) in zip(lines, lines.dropFirst()) {
            guard !line.isEmpty, !next.isEmpty, !next.hasPrefix(" "), !next.hasPrefix("- ") else { continue }
            if line.hasPrefix(" ") || line.hasPrefix("- ") {
                ragged.append("\(line)⏎\(next)")
                continue
            }
            guard !line.hasSuffix(":") else { continue }
            let firstWord = next.prefix { $0 != " " }
            if line.count + 1 + firstWord.count < columns { ragged.append("\(line)⏎\(next)") }
        }
        return ragged
    }

    @Test func theCheckFindsAHardBreakInsideASentence() {
        let lines = [
            "OVERVIEW: Serve. POST /pusher/auth signs any private or",
            "presence subscription and more words to come.",
        ]
        #expect(Self.raggedBreaks(lines, columns: 80).count == 1)
        #expect(Self.raggedBreaks(["Examples:", "  pushtop trigger chat message"], columns: 80).isEmpty)
        #expect(
            Self.raggedBreaks(["  pushtop trigger --cluster eu --key KEY", "my-channel my-event"], columns: 80).count
                == 1)
    }

    @Test(arguments: ["serve", "watch", "trigger", "doctor", "replay"])
    func theDiscussionWrapsCleanlyAt80Columns(command: String) async throws {
        let run = try await CommandRun.run("pushtop", [command, "--help"], environment: ["COLUMNS": "80"])
        #expect(run.status == 0)
        let overview = Self.overview(run.stdout)
        #expect(overview.count > 3, "\(command) --help has a discussion: \(run.stdout)")
        #expect(overview.allSatisfy { $0.count <= 80 }, "\(command): a line over 80 columns")
        let ragged = Self.raggedBreaks(overview, columns: 80)
        #expect(ragged.isEmpty, "\(command) --help breaks lines short: \(ragged)")
        // Paragraphs stay paragraphs: a blank line after the abstract and at least one between paragraphs.
        let blanks = overview.reversed().drop { $0.isEmpty }.filter(\.isEmpty).count
        #expect(blanks >= 2, "\(command): the discussion's paragraphs ran together: \(overview)")
    }
}
