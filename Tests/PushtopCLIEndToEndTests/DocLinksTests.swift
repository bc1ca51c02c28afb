import Foundation
import PushtopTestSupport
import Testing

/// Every relative link and `#anchor` in the README, `docs/` and `Sources/README.md` resolves
/// (`scripts/check-doc-links`, which `scripts/docs` runs too), so a renamed heading or a moved page fails here
/// first.
@Suite(.timeLimit(.minutes(1))) struct DocLinksTests {
    @Test func everyRelativeLinkAndAnchorResolves() async throws {
        let script = GeneratedPage.root.appendingPathComponent("scripts/check-doc-links").path
        let run = try await CommandRun.run("/usr/bin/env", ["python3", script])
        #expect(run.status == 0, "broken links (scripts/check-doc-links):\n\(run.stdout)\(run.stderr)")
    }
}
