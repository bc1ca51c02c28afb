// Seal and open of one event (1 KB by default) with PusherProtocol's Swift secretbox and with libsodium, alternating
// rounds so that load on the machine moves both alike; prints ns per operation (the best round and the median).
// Built by Benchmarks/secretbox_bench.sh with `swiftc -O` from PusherProtocol/SecretBox/*.swift and this file.
//   secretbox-bench [SIZE] [ITERATIONS] [ROUNDS]
import CSodium

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let size = arguments.count > 0 ? arguments[0] : 1024
let iterations = arguments.count > 1 ? arguments[1] : 100_000
let rounds = arguments.count > 2 ? arguments[2] : 7

precondition(sodium_init() >= 0)
let key = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
let nonce = (0..<24).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
let message = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 17) }

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// ns per call of `body`, over `iterations` calls.
@inline(never)
func measure(_ body: () -> UInt8) -> Double {
    var sink: UInt8 = 0
    let start = now()
    for _ in 0..<iterations { sink &+= body() }
    let elapsed = now() - start
    if sink == 0xFF && elapsed == 0 { print("") }  // keeps `sink` alive
    return Double(elapsed) / Double(iterations)
}

// The API each side offers: Swift's returns a new array; libsodium's writes into one the caller owns (allocated per
// call here too, as ClientSecretBox does).
func swiftSeal() -> UInt8 { (try! SecretBox.seal(message, nonce: nonce, key: key))[0] }
let swiftBox = try! SecretBox.seal(message, nonce: nonce, key: key)
func swiftOpen() -> UInt8 { (try! SecretBox.open(swiftBox, nonce: nonce, key: key)).last ?? 0 }
func sodiumSeal() -> UInt8 {
    var box = [UInt8](repeating: 0, count: message.count + 16)
    _ = crypto_secretbox_easy(&box, message, UInt64(message.count), nonce, key)
    return box[0]
}
let sodiumBox: [UInt8] = {
    var box = [UInt8](repeating: 0, count: message.count + 16)
    _ = crypto_secretbox_easy(&box, message, UInt64(message.count), nonce, key)
    return box
}()
precondition(sodiumBox == swiftBox, "the Swift box differs from libsodium's")
func sodiumOpen() -> UInt8 {
    var plain = [UInt8](repeating: 0, count: sodiumBox.count - 16)
    precondition(crypto_secretbox_open_easy(&plain, sodiumBox, UInt64(sodiumBox.count), nonce, key) == 0)
    return plain.last ?? 0
}

var results: [String: [Double]] = [:]
let cases: [(String, () -> UInt8)] = [
    ("seal swift", swiftSeal), ("seal libsodium", sodiumSeal), ("open swift", swiftOpen),
    ("open libsodium", sodiumOpen),
]
for _ in 0..<rounds {
    for (name, body) in cases { results[name, default: []].append(measure(body)) }
}
print("secretbox, \(size)-byte message, \(iterations) operations x \(rounds) rounds (ns/op: best, median)")
for (name, _) in cases {
    let sorted = results[name]!.sorted()
    let best = sorted[0]
    let median = sorted[sorted.count / 2]
    let mbps = Double(size) / best * 1_000
    print(
        name + String(repeating: " ", count: max(1, 16 - name.count))
            + " \(Int(best.rounded())) ns  \(Int(median.rounded())) ns  (\(Int(mbps.rounded())) MB/s best)")
}
let ratioSeal = results["seal swift"]!.min()! / results["seal libsodium"]!.min()!
let ratioOpen = results["open swift"]!.min()! / results["open libsodium"]!.min()!
print("swift / libsodium: seal \((ratioSeal * 100).rounded() / 100)x, open \((ratioOpen * 100).rounded() / 100)x")
