import SecretBoxAgreement
import Testing

/// The Swift secretbox against libsodium on 100,000 seeded random keys, nonces and messages, from empty to 1 MB
/// (`SecretBoxAgreement`, shared with `secretbox-release-check`, which runs it on the release build). A failure
/// names its seed and case, so `PUSHTOP_SECRETBOX_SEED=… swift test --filter SecretBoxLibsodiumTests` replays it.
@Suite struct SecretBoxLibsodiumTests {
    @Test func agreesWithLibsodiumOnRandomBoxes() {
        let outcome = SecretBoxAgreement.run(cases: 100_000)
        for failure in outcome.failures { Issue.record(Comment(rawValue: failure)) }
        #expect(outcome.failures.isEmpty)
        #expect(outcome.largest == 1 << 20)
        #expect(outcome.totalBytes > 20_000_000)
    }
}
