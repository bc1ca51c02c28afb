import CSodium
import Foundation
import PusherChannels
import PusherProtocol
import SeededRandom

/// The Swift secretbox against libsodium (the reference it replaces), called from a module of its own as
/// `PushtopServer`, `PushtopConformance` and `PusherChannels` call it: seeded random keys, nonces and messages from
/// empty to 1 MB; the same box byte for byte, each side opens the other's, both refuse a box with one bit flipped;
/// and NaCl's vector. `PusherProtocolTests` runs it on the debug build, `secretbox-release-check` on the release
/// build that ships (a release-only miscompile once made `seal` throw garbage: swiftlang/swift#90477).
public enum SecretBoxAgreement {
    /// What a run found.
    public struct Outcome: Sendable {
        /// One line per disagreement (at most `maxFailures`), naming the seed and the case.
        public var failures: [String] = []
        /// Cases compared (random boxes, the vector, the client's payloads).
        public var checks = 0
        /// The longest message, and all messages' bytes together.
        public var largest = 0
        public var totalBytes = 0
    }

    /// The default seed; `PUSHTOP_SECRETBOX_SEED` replays another.
    public static var seed: UInt64 {
        if let text = ProcessInfo.processInfo.environment["PUSHTOP_SECRETBOX_SEED"], let value = UInt64(text) {
            return value
        }
        return 0x5ec2_e7b0_c5a1_5a20
    }

    /// How long case `index` is: mostly under 256 bytes (Pusher events), some up to 16 KB, every 10,000th between
    /// 64 KB and 1 MB, and case 1 exactly 1 MB; every length from 0 to 300 shows up many times.
    static func length(of index: Int, _ random: inout SplitMix) -> Int {
        if index == 1 { return 1 << 20 }
        if index % 10_000 == 5_000 { return 65_536 + random.below((1 << 20) - 65_536 + 1) }
        switch random.below(100) {
        case 0..<5: return 0
        case 5..<80: return random.below(301)
        case 80..<97: return random.below(4_097)
        default: return random.below(16_385)
        }
    }

    static func bytes(_ count: Int, _ random: inout SplitMix) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            let word = random.next()
            for shift in stride(from: 0, to: 64, by: 8) where bytes.count < count {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return bytes
    }

    static func sodiumSeal(_ message: [UInt8], nonce: [UInt8], key: [UInt8]) -> [UInt8] {
        var box = [UInt8](repeating: 0, count: message.count + Int(crypto_secretbox_MACBYTES))
        let result = crypto_secretbox_easy(&box, message, UInt64(message.count), nonce, key)
        precondition(result == 0)
        return box
    }

    static func sodiumOpen(_ box: [UInt8], nonce: [UInt8], key: [UInt8]) -> [UInt8]? {
        var message = [UInt8](repeating: 0, count: max(0, box.count - Int(crypto_secretbox_MACBYTES)))
        guard crypto_secretbox_open_easy(&message, box, UInt64(box.count), nonce, key) == 0 else { return nil }
        return message
    }

    /// Compares `cases` random boxes (seeded by `seed`), NaCl's vector and the client's Pusher payloads; stops
    /// collecting after `maxFailures` disagreements.
    public static func run(cases: Int, seed: UInt64 = seed, maxFailures: Int = 5) -> Outcome {
        precondition(sodium_init() >= 0, "libsodium did not initialise")
        var outcome = Outcome()
        func fail(_ text: String) { outcome.failures.append(text) }
        vector(&outcome)
        var random = SplitMix(seed: seed)
        // The payload checks' nonces, apart from the main sequence so that the boxes stay those of the seed.
        var nonces = SplitMix(seed: seed ^ 0x9a71_0ad5)
        for index in 0..<cases where outcome.failures.count < maxFailures {
            let key = bytes(32, &random)
            let nonce = bytes(24, &random)
            let message = bytes(length(of: index, &random), &random)
            outcome.largest = max(outcome.largest, message.count)
            outcome.totalBytes += message.count
            outcome.checks += 1
            let context = "seed \(seed) case \(index) (\(message.count) bytes)"
            // Seal here, open there: the same bytes, and libsodium opens them.
            let sodiumBox = sodiumSeal(message, nonce: nonce, key: key)
            do {
                let swiftBox = try SecretBox.seal(message, nonce: nonce, key: key)
                if swiftBox != sodiumBox { fail("sealed boxes differ: \(context)") }
                if sodiumOpen(swiftBox, nonce: nonce, key: key) != message {
                    fail("libsodium did not open the Swift box: \(context)")
                }
            } catch {
                fail("SecretBox.seal threw \(error): \(context)")
            }
            // Seal there, open here.
            if (try? SecretBox.open(sodiumBox, nonce: nonce, key: key)) != message {
                fail("Swift did not open libsodium's box: \(context)")
            }
            // One flipped bit anywhere (tag or ciphertext): both refuse.
            var tampered = sodiumBox
            let bit = random.below(tampered.count * 8)
            tampered[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
            let swiftOpened = try? SecretBox.open(tampered, nonce: nonce, key: key)
            if swiftOpened != nil || sodiumOpen(tampered, nonce: nonce, key: key) != nil {
                fail("a box with bit \(bit) flipped was opened (Swift \(swiftOpened != nil)): \(context)")
            }
            // Every 100th case through the client's payload, as an encrypted channel's event carries it.
            if index % 100 == 0 { clientPayload(message, key: key, context: context, nonces: &nonces, &outcome) }
        }
        return outcome
    }

    /// NaCl's vector and its empty message, both ways.
    static func vector(_ outcome: inout Outcome) {
        let v = NaClSecretBoxVector.self
        outcome.checks += 1
        if (try? SecretBox.seal(v.message, nonce: v.nonce, key: v.key)) != v.box {
            outcome.failures.append("NaCl's vector: seal")
        }
        if (try? SecretBox.open(v.box, nonce: v.nonce, key: v.key)) != v.message {
            outcome.failures.append("NaCl's vector: open")
        }
        if (try? SecretBox.seal([], nonce: v.nonce, key: v.key)) != v.emptyMessageTag {
            outcome.failures.append("NaCl's empty message: seal")
        }
    }

    /// `ClientSecretBox`'s Pusher payload (`{"ciphertext":…,"nonce":…}`): libsodium opens what it seals, and it opens
    /// what libsodium sealed.
    static func clientPayload(
        _ message: [UInt8], key: [UInt8], context: String, nonces: inout SplitMix, _ outcome: inout Outcome
    ) {
        outcome.checks += 1
        let text = String(decoding: message, as: UTF8.self)
        do {
            let payload = try ClientSecretBox.sealPusherPayload(text, key: key)
            guard case .object(let fields) = try JSONValue(parsing: payload),
                let nonce = fields["nonce"]?.stringValue.flatMap({ Data(base64Encoded: $0) }),
                let cipher = fields["ciphertext"]?.stringValue.flatMap({ Data(base64Encoded: $0) }),
                sodiumOpen(Array(cipher), nonce: Array(nonce), key: key) == Array(text.utf8)
            else {
                outcome.failures.append("libsodium did not open the client's payload: \(context)")
                return
            }
            let nonceBytes = bytes(24, &nonces)
            let sodiumBox = sodiumSeal(Array(text.utf8), nonce: nonceBytes, key: key)
            let theirs =
                "{\"ciphertext\":\"\(Data(sodiumBox).base64EncodedString())\",\"nonce\":\"\(Data(nonceBytes).base64EncodedString())\"}"
            if try ClientSecretBox.openPusherPayload(theirs, key: key) != text {
                outcome.failures.append("the client did not open libsodium's payload: \(context)")
            }
        } catch {
            outcome.failures.append("the client's payload threw \(error): \(context)")
        }
    }
}
