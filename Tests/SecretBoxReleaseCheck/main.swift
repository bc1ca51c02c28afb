import Foundation
import SecretBoxAgreement

// The Swift secretbox against libsodium on the release build that ships: `scripts/release-tier` builds this with
// `scripts/release-build`'s flags, so the PusherProtocol and PusherChannels it links are the very objects in
// `pushtop`. Exit 1 on any disagreement. `PUSHTOP_SECRETBOX_SEED=N` replays a seed; an argument sets the number of
// random cases (100,000 by default).
let cases = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000
let outcome = SecretBoxAgreement.run(cases: cases)
for failure in outcome.failures { print("FAIL \(failure)") }
let failed = outcome.failures.count
print(
    "secretbox-release-check: \(outcome.checks) boxes compared with libsodium (largest \(outcome.largest) bytes, "
        + "\(outcome.totalBytes / 1_000_000) MB in all, seed \(SecretBoxAgreement.seed))")
print("\(outcome.checks - failed) passed, \(failed) failed")
if failed > 0 || outcome.largest != 1 << 20 && cases > 1 { exit(1) }
