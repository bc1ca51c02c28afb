import BenchmarkSupport
import Foundation
import PusherChannels
import PushtopCLI

// Load tools (release build): whole-system rates that package-benchmark's per-operation figures do not show.
//   pushtop-benchmarks loopback [--n N]        bulk frames over loopback into one PusherClient batch consumer
//   pushtop-benchmarks watch-pipe [--n N] [--bin .build/release/pushtop]   pushtop watch, stdout read and discarded
//   pushtop-benchmarks idle --port P --n 10000 [--hold S]   idle connections to a running `pushtop serve`
//   pushtop-benchmarks fanout --port P [--subscribers 1000] [--events 200] [--server-pid PID]   one event at a time
//       through the HTTP API of a running `pushtop serve` to raw subscribers: latency per delivery, server CPU
//   pushtop-benchmarks compression --port P [--subscribers 1000] [--events 200] [--server-pid PID]   the same fan-out
//       with and without permessage-deflate, demo traffic and 1 KB JSON: wire bytes and server CPU per delivery
//   pushtop-benchmarks sustain --port P [--rate 50000] [--seconds 30] [--subscribers 10] [--connections 16]
//       [--server-pid PID]   numbered events through /batch_events (10 a request): lost, reordered, server RSS
//       [--subscribe-ports P1,P2] [--pids name=PID,...]   subscribers on other nodes of a cluster; their CPU too
//   pushtop-benchmarks redis-pubsub [--redis-port 6379] [--rate 1000] [--seconds 5] [--bytes 200] [--server-pid PID]
//       PushtopRedis's publish -> subscriber latency through a running redis-server (the Redis hop of a cluster)
//   pushtop-benchmarks decode|decode-string|watch-line [--n N]   N operations and nothing else, for instruction counts:
//       valgrind --tool=callgrind .build/release/pushtop-benchmarks decode --n 100000   (then / N, less --n 0)
//   pushtop-benchmarks console-view [--rate 5000] [--fps 30] [--seconds 10]   the dashboard's debug console: update and
//       render per frame under a stream of rows, CPU as a share of one core (no server, no terminal)
// The per-operation micro-benchmarks live in Benchmarks/HotPaths (`swift package --package-path Benchmarks benchmark`).
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
case "compression":
    var settings = CompressionFanOut.Settings(
        target: SignedPublisher.Target(
            port: Int(value("--port") ?? "6001") ?? 6001, appID: value("--app-id") ?? "1",
            key: value("--key") ?? "pushtop-key", secret: value("--secret") ?? "pushtop-secret"))
    settings.serverPID = value("--server-pid").flatMap(Int32.init)
    settings.subscribers = value("--subscribers").flatMap(Int.init) ?? settings.subscribers
    settings.events = value("--events").flatMap(Int.init) ?? settings.events
    print(try CompressionFanOut.run(settings))
case "fanout", "sustain":
    let target = SignedPublisher.Target(
        port: Int(value("--port") ?? "6001") ?? 6001, appID: value("--app-id") ?? "1",
        key: value("--key") ?? "pushtop-key", secret: value("--secret") ?? "pushtop-secret")
    let pid = value("--server-pid").flatMap(Int32.init)
    if which == "fanout" {
        var settings = FanOutLatency.Settings(target: target, serverPID: pid)
        settings.subscribers = value("--subscribers").flatMap(Int.init) ?? settings.subscribers
        settings.events = value("--events").flatMap(Int.init) ?? settings.events
        settings.gap = .milliseconds(value("--gap-ms").flatMap(Int.init) ?? 2)
        print(try FanOutLatency.run(settings))
    } else {
        var settings = SustainedPublish.Settings(target: target, serverPID: pid)
        settings.rate = value("--rate").flatMap(Int.init) ?? settings.rate
        settings.seconds = value("--seconds").flatMap(Double.init) ?? settings.seconds
        settings.subscribers = value("--subscribers").flatMap(Int.init) ?? settings.subscribers
        settings.connections = value("--connections").flatMap(Int.init) ?? settings.connections
        settings.batch = value("--batch").flatMap(Int.init) ?? settings.batch
        settings.subscribePorts = (value("--subscribe-ports") ?? "").split(separator: ",").compactMap { Int($0) }
        settings.otherProcesses = (value("--pids") ?? "").split(separator: ",").compactMap { pair in
            let parts = pair.split(separator: "=")
            guard parts.count == 2, let pid = Int32(parts[1]) else { return nil }
            return (String(parts[0]), pid)
        }
        print(try SustainedPublish.run(settings))
    }
case "redis-pubsub":
    var settings = RedisPubSubLatency.Settings()
    settings.port = value("--redis-port").flatMap(Int.init) ?? settings.port
    settings.rate = value("--rate").flatMap(Int.init) ?? settings.rate
    settings.seconds = value("--seconds").flatMap(Double.init) ?? settings.seconds
    settings.payloadBytes = value("--bytes").flatMap(Int.init) ?? settings.payloadBytes
    settings.serverPID = value("--server-pid").flatMap(Int32.init)
    print(try await RedisPubSubLatency.run(settings))
case "decode":
    // As the client's transport: from the frame's bytes.
    var sink = 0
    var decoder = PusherFrameDecoder()
    Array(SampleFrames.event.utf8).withUnsafeBytes { frame in
        for _ in 0..<n { sink &+= (try? decoder.decode(frame))?.event.utf8.count ?? 0 }
    }
    print("decoded \(n) frames (\(sink))")
case "decode-string":
    // `PusherMessage(decoding:)`: a String and a JSONValue tree.
    var sink = 0
    for _ in 0..<n { sink &+= (try? PusherMessage(decoding: SampleFrames.event))?.event.utf8.count ?? 0 }
    print("decoded \(n) frames (\(sink))")
case "console-view":
    var settings = ConsoleViewLoad.Settings()
    settings.rate = value("--rate").flatMap(Int.init) ?? settings.rate
    settings.fps = value("--fps").flatMap(Int.init) ?? settings.fps
    settings.seconds = value("--seconds").flatMap(Double.init) ?? settings.seconds
    print(ConsoleViewLoad.run(settings))
case "watch-line":
    let event = ClientEvent.event(
        ChannelEvent(channel: "ticker", name: "price-update", dataText: SampleFrames.eventData))
    var bytes = 0
    var out: [UInt8] = []
    for _ in 0..<n {
        out.removeAll(keepingCapacity: true)
        _ = WatchLine.append(event, to: &out)
        bytes &+= out.count
    }
    print("encoded \(n) lines (\(bytes) bytes)")
default:
    FileHandle.standardError.write(
        Data(
            "usage: pushtop-benchmarks loopback|watch-pipe|idle|fanout|compression|sustain|redis-pubsub|console-view [--n N] ...\n"
                .utf8))
    exit(64)
}
