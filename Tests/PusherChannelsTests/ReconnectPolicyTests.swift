import Testing

@testable import PusherChannels

@Suite struct ReconnectPolicyTests {
    @Test func exponentialDoublesUpToTheMaximum() {
        let p = ReconnectPolicy(kind: .exponential, minDelay: 1, maxDelay: 10, jitter: 0)
        #expect((1...6).map { p.baseDelay(attempt: $0) } == [1, 2, 4, 8, 10, 10])
        #expect(p.baseDelay(attempt: 5000) == 10, "no overflow for huge attempt numbers")
    }

    @Test func linearAddsTheMinimum() {
        let p = ReconnectPolicy(kind: .linear, minDelay: 0.5, maxDelay: 2, jitter: 0)
        #expect((1...6).map { p.baseDelay(attempt: $0) } == [0.5, 1, 1.5, 2, 2, 2])
    }

    @Test func jitterStaysWithinItsBounds() {
        let p = ReconnectPolicy(kind: .exponential, minDelay: 4, maxDelay: 60, jitter: 0.25)
        #expect(p.delay(attempt: 1, unitRandom: 0) == 3)
        #expect(p.delay(attempt: 1, unitRandom: 1) == 5)
        #expect(p.delay(attempt: 1, unitRandom: 0.5) == 4)
        for _ in 0..<1000 {
            let d = p.delay(attempt: 3, unitRandom: Double.random(in: 0...1))
            #expect(d >= 12 && d <= 20)
        }
    }

    @Test func jitterNeverExceedsTheMaximumDelay() {
        let p = ReconnectPolicy(kind: .exponential, minDelay: 1, maxDelay: 8, jitter: 0.5)
        #expect(p.delay(attempt: 10, unitRandom: 1) == 8)
    }

    @Test func retriesAreBounded() {
        let p = ReconnectPolicy(maxRetries: 3)
        #expect(p.allows(attempt: 3) && !p.allows(attempt: 4))
        #expect(ReconnectPolicy(maxRetries: 0).allows(attempt: 1_000_000))
        #expect(!ReconnectPolicy(kind: .none).allows(attempt: 1))
    }

    @Test func theDefaultNeverGivesUp() {
        #expect(ReconnectPolicy.default.maxRetries == 0)
        #expect(ReconnectPolicy().allows(attempt: 1_000_000))
        #expect(ReconnectPolicy.default.kind == .exponential && ReconnectPolicy.default.maxDelay == 60)
    }
}
