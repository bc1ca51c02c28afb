import CSodium
import PushtopTestSupport
import Testing

@testable import PusherProtocol

/// The Swift secretbox against libsodium (the reference it replaces) on 100,000 seeded random keys, nonces and
/// messages, from empty to 1 MB: the same box byte for byte, each side opens the other's, and both refuse a box with
/// one bit flipped. A failure names its seed and case, so `PUSHTOP_SECRETBOX_SEED=… swift test --filter
/// SecretBoxLibsodiumTests` replays it.
@Suite struct SecretBoxLibsodiumTests {
    static let cases = 100_000
    static let seed: UInt64 = {
        if let text = getenv("PUSHTOP_SECRETBOX_SEED"), let value = UInt64(String(cString: text)) { return value }
        return 0x5ec2_e7b0_c5a1_5a20
    }()

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
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var offset = 0
            while offset < count {
                var word = random.next()
                withUnsafeBytes(of: &word) { word in
                    let take = min(8, count - offset)
                    raw.baseAddress!.advanced(by: offset).copyMemory(from: word.baseAddress!, byteCount: take)
                }
                offset += 8
            }
            initialized = count
        }
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

    @Test func agreesWithLibsodiumOnRandomBoxes() throws {
        #expect(sodium_init() >= 0)
        var random = SplitMix(seed: Self.seed)
        var failures = 0
        var largest = 0
        var total = 0
        for index in 0..<Self.cases where failures < 5 {
            let key = Self.bytes(32, &random)
            let nonce = Self.bytes(24, &random)
            let message = Self.bytes(Self.length(of: index, &random), &random)
            largest = max(largest, message.count)
            total += message.count
            let context = "seed \(Self.seed) case \(index) (\(message.count) bytes)"

            // Seal here, open there: the same bytes, and libsodium opens them.
            let swiftBox = try SecretBox.seal(message, nonce: nonce, key: key)
            let sodiumBox = Self.sodiumSeal(message, nonce: nonce, key: key)
            if swiftBox != sodiumBox {
                failures += 1
                Issue.record("sealed boxes differ: \(context)")
            }
            if Self.sodiumOpen(swiftBox, nonce: nonce, key: key) != message {
                failures += 1
                Issue.record("libsodium did not open the Swift box: \(context)")
            }
            // Seal there, open here.
            if (try? SecretBox.open(sodiumBox, nonce: nonce, key: key)) != message {
                failures += 1
                Issue.record("Swift did not open libsodium's box: \(context)")
            }
            // One flipped bit anywhere (tag or ciphertext): both refuse.
            var tampered = sodiumBox
            let bit = random.below(tampered.count * 8)
            tampered[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
            let swiftOpened = try? SecretBox.open(tampered, nonce: nonce, key: key)
            let sodiumOpened = Self.sodiumOpen(tampered, nonce: nonce, key: key)
            if swiftOpened != nil || sodiumOpened != nil {
                failures += 1
                Issue.record("a box with bit \(bit) flipped was opened (Swift \(swiftOpened != nil)): \(context)")
            }
        }
        #expect(failures == 0)
        #expect(largest == 1 << 20)
        #expect(total > 20_000_000)
    }
}
