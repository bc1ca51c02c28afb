import Foundation

// Micro-benchmarks of the client core. Run in release:
//   swift run -c release pushtop-benchmarks [decode|roster|watch|loopback|all] [--n N]
//   pushtop-benchmarks idle --n 10000 --port 6001 --hold 10   (against a running pushtop serve)
let args = CommandLine.arguments.dropFirst()
let which = args.first { !$0.hasPrefix("--") } ?? "all"
var n = 1_000_000
if let i = args.firstIndex(of: "--n"), args.index(after: i) < args.endIndex, let v = Int(args[args.index(after: i)]) { n = v }

print("pushtop benchmarks (\(n) iterations each)")
if which == "all" || which == "decode" {
    print(Benchmarks.frameDecode(n))
    print(Benchmarks.frameDecodeWithData(n))
}
if which == "all" || which == "roster" { print(Benchmarks.rosterUpdates(n)) }
if which == "all" || which == "watch" { print(Benchmarks.watchLines(n)) }
if which == "all" || which == "loopback" { print(try await Benchmarks.loopbackDelivery(n)) }
if which == "watch-pipe" {
    // pushtop-benchmarks watch-pipe --n N [--bin .build/release/pushtop]
    let bin = args.firstIndex(of: "--bin").map { args[args.index(after: $0)] } ?? ".build/release/pushtop"
    print(try await WatchThroughput.run(binary: bin, count: n))
}
if which == "idle" {
    // pushtop-benchmarks idle --port P --n 10000 [--hold S]: connections to a running `pushtop serve`.
    func value(_ flag: String) -> String? {
        args.firstIndex(of: flag).flatMap { args.index(after: $0) < args.endIndex ? args[args.index(after: $0)] : nil }
    }
    let port = Int(value("--port") ?? "6001") ?? 6001
    let hold = Double(value("--hold") ?? "5") ?? 5
    print(try await IdleConnections.run(port: port, count: n, hold: hold))
}
