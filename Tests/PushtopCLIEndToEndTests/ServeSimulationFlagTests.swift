import Foundation
import PushtopTestSupport
import Testing

/// `serve --simulate`'s churn knobs refuse bad values with a message that names the flag and the range, and
/// exit with the usage status before anything listens.
@Suite struct ServeSimulationFlagTests {
    @Test(arguments: [
        (["--churn", "nan"], "--churn must be 0...1000 changes a second"),
        (["--churn", "5000"], "--churn must be 0...1000 changes a second"),
        (["--churn", "5", "--churn-for", "0"], "--churn-for must be positive"),
        (["--event-rate", "0"], "--event-rate must be more than 0 and at most 10000"),
        (["--event-rate", "20000"], "--event-rate must be more than 0 and at most 10000"),
        (["--churn", "-1"], "Missing value for '--churn"),
    ])
    func badChurnFlagsAreRefusedClearly(arguments: [String], message: String) async throws {
        let run = try await CommandRun.run("pushtop", ["serve", "--simulate", "--port", "0"] + arguments, timeout: 30)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(!run.stderr.contains("listening"))
    }
}
