import Foundation

// Micro-benchmarks of the client core. Run in release:
//   swift run -c release pushtop-benchmarks [decode|roster|watch|loopback|all] [--n N]
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
