import Foundation

// Load tools (release build): whole-system rates that package-benchmark's per-operation figures do not show.
//   pushtop-benchmarks loopback [--n N]        bulk frames over loopback into one PusherClient batch consumer
//   pushtop-benchmarks watch-pipe [--n N] [--bin .build/release/pushtop]   pushtop watch, stdout read and discarded
//   pushtop-benchmarks idle --port P --n 10000 [--hold S]   idle connections to a running `pushtop serve`
// The per-operation micro-benchmarks live in Benchmarks/PushtopBenchmarks (`swift package benchmark`).
let args = CommandLine.arguments.dropFirst()
let which = args.first { !$0.hasPrefix("--") } ?? "loopback"
func value(_ flag: String) -> String? {
    args.firstIndex(of: flag).flatMap { args.index(after: $0) < args.endIndex ? args[args.index(after: $0)] : nil }
}
let n = value("--n").flatMap(Int.init) ?? 1_000_000

switch which {
case "loopback":
    print(try await Loopback.delivery(n))
case "watch-pipe":
    print(try await WatchThroughput.run(binary: value("--bin") ?? ".build/release/pushtop", count: n))
case "idle":
    let port = Int(value("--port") ?? "6001") ?? 6001
    let hold = Double(value("--hold") ?? "5") ?? 5
    print(try await IdleConnections.run(port: port, count: n, hold: hold))
default:
    FileHandle.standardError.write(Data("usage: pushtop-benchmarks loopback|watch-pipe|idle [--n N] ...\n".utf8))
    exit(64)
}
