import Foundation
import PushtopTestSupport
import Testing

/// The soak form of ``FaultToleranceTests``: random faults for `PUSHTOP_SOAK_SECONDS` seconds (run it with
/// `scripts/soak`); skipped when the variable is not set. Prints the figures every minute and at the end.
@Suite struct FaultSoakTests {
    static let seconds = ProcessInfo.processInfo.environment["PUSHTOP_SOAK_SECONDS"].flatMap(Double.init)

    @Test(.enabled(if: seconds != nil, "set PUSHTOP_SOAK_SECONDS (scripts/soak)"), .timeLimit(.minutes(24 * 60)))
    func randomFaultsForAWhile() async throws {
        let seconds = try #require(Self.seconds)
        let harness = try await FaultHarness.start()
        let end = ContinuousClock.now + .seconds(seconds)
        let stall = FaultHarness.activityTimeout + FaultHarness.pongTimeout
        let figures = try await harness.run { harness in
            var nextReport = ContinuousClock.now + .seconds(60)
            var generator = SystemRandomNumberGenerator()
            while ContinuousClock.now < end {
                let fault: FaultHarness.Fault
                switch Int.random(in: 0..<6, using: &generator) {
                case 0: fault = .cut(.reset)
                case 1: fault = .cut(.fin)
                case 2: fault = .truncate
                case 3:
                    fault = .stall(
                        seconds: stall + FaultHarness.stallMargin + Double.random(in: 0...2.5, using: &generator))
                case 4: fault = .listenerDown(seconds: Double.random(in: 0.2...3, using: &generator))
                default:
                    fault = .shaped(
                        latencyMs: Int.random(in: 10...200, using: &generator),
                        bytesPerSecond: Int.random(in: 8_000...200_000, using: &generator))
                }
                try await harness.cycle(fault, rounds: Int.random(in: 5...40, using: &generator))
                if ContinuousClock.now >= nextReport {
                    print("soak: \(await harness.figures)")
                    nextReport = ContinuousClock.now + .seconds(60)
                }
            }
            try await harness.finalWindow()
        }
        print("soak finished after \(Int(seconds)) s:\n\(figures)")
        FaultHarness.expectDelivery(figures)
    }
}
