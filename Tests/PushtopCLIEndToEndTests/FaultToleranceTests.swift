import Foundation
import PushtopTestSupport
import Testing

/// The real `pushtop watch` against the embedded server through a ``FaultProxy``: numbered events on four channels
/// (public, private, presence) survive every fault: nothing counted is lost, nothing is duplicated or reordered,
/// and every channel is subscribed again after every fault. The figures are printed.
@Suite(.timeLimit(.minutes(3))) struct FaultToleranceTests {
    @Test func watchHoldsUpUnderEveryFault() async throws {
        let harness = try await FaultHarness.start()
        let faults: [FaultHarness.Fault] = [
            .cut(.reset), .cut(.fin), .truncate,
            .stall(seconds: FaultHarness.activityTimeout + FaultHarness.pongTimeout + FaultHarness.stallMargin),
            .listenerDown(seconds: 1.5), .shaped(latencyMs: 80, bytesPerSecond: 16_000), .cut(.reset),
        ]
        let figures = try await harness.run { harness in
            for fault in faults { try await harness.cycle(fault) }
            try await harness.finalWindow()
        }
        print("fault tolerance (watch through FaultProxy):\n\(figures)")
        FaultHarness.expectDelivery(figures)
        #expect(figures.recoveries.count == faults.filter(\.cutsConnection).count)
        #expect(figures.ledger.counted >= faults.count * 20 * FaultHarness.channels.count)
    }
}
