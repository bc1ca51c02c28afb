import Foundation
import PushtopTestSupport
import Testing

/// The programs in Examples/ are built with the package; the one that checks itself runs here.
@Suite(.timeLimit(.minutes(1))) struct ExamplesTests {
    @Test func embeddedCheckExampleReceivesWhatItPublishedAndExitsZero() async throws {
        let run = try await CommandRun.run("example-embedded-check", [])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains(#"ok: private-orders order-created {"id":42,"item":"coffee"}"#))
        #expect(!run.stderr.contains("info"), "the example logs only warnings: \(run.stderr)")
    }
}
