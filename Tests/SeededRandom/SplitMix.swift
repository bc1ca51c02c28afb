/// A small seeded random number generator (SplitMix64), so that the mutation tests and the churn simulations are
/// the same on every run.
public struct SplitMix: Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<1.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// A number in 0..<n.
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// `seed` with one to three mutations: a byte replaced by one of `alphabet`, removed, or one inserted.
    public mutating func mutated(_ seed: [UInt8], alphabet: [UInt8]) -> [UInt8] {
        var bytes = seed
        for _ in 0..<(1 + next() % 3) {
            let position = bytes.isEmpty ? 0 : Int(next() % UInt64(bytes.count))
            switch next() % 3 {
            case 0 where !bytes.isEmpty: bytes[position] = alphabet[Int(next() % UInt64(alphabet.count))]
            case 1 where !bytes.isEmpty: bytes.remove(at: position)
            default: bytes.insert(alphabet[Int(next() % UInt64(alphabet.count))], at: position)
            }
        }
        return bytes
    }
}
