import BenchmarkSupport
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pushtop-benchmarks compression` (issue 25): the same fan-out with and without permessage-deflate, in one run
/// against one running `pushtop serve`: bytes on the wire per delivery (every byte the subscribers read, frame
/// headers included) and the server's CPU per delivery, for the demo's traffic and for 1 KB JSON events.
///
/// Each of the four phases connects its own raw subscribers (offering `permessage-deflate; client_max_window_bits`
/// or nothing) to a channel of its own, publishes one event at a time through the HTTP API and waits until every
/// subscriber has read it. Subscribers count frames and bytes and do not inflate (their CPU is the tool's, on the
/// same cores), so the server's figures are not inflated by a client library.
enum CompressionFanOut {
    struct Settings {
        var target: SignedPublisher.Target
        var subscribers = 1000
        var events = 200
        var serverPID: Int32?
    }

    /// What one phase measured.
    struct Phase {
        var traffic: String
        var compressed: Bool
        var deliveries: Int
        var wireBytes: Int
        var compressedFrames: Int
        var payloadBytes: Int
        var serverCPU: Double?
        var toolCPU: Double
        var seconds: Double
    }

    static func run(_ settings: Settings) throws -> String {
        let traffics: [(name: String, events: (Int) -> (name: String, data: String))] = [
            ("demo", demoEvent), ("1 KB JSON", { ("order", kilobyteJSON($0)) }),
        ]
        var phases: [Phase] = []
        for (index, traffic) in traffics.enumerated() {
            for compressed in [false, true] {
                let channel = "compression-\(index)-\(compressed ? "deflate" : "plain")"
                phases.append(
                    try phase(
                        settings, traffic: traffic.name, channel: channel, compressed: compressed,
                        events: traffic.events))
            }
        }
        var lines = [
            "compression: \(settings.events) events, one at a time, to \(settings.subscribers) subscribers per phase",
            "traffic     mode     payload B/event  wire B/delivery  compressed frames  server CPU µs/delivery  tool CPU s",
        ]
        for phase in phases {
            let cpu = phase.serverCPU.map { String(format: "%.2f", $0 * 1e6 / Double(max(1, phase.deliveries))) } ?? "-"
            lines.append(
                pad(phase.traffic, 12) + pad(phase.compressed ? "deflate" : "plain", 9)
                    + String(
                        format: "%15.0f  %15.1f  %17d  ", Double(phase.payloadBytes) / Double(settings.events),
                        Double(phase.wireBytes) / Double(max(1, phase.deliveries)), phase.compressedFrames)
                    + String(repeating: " ", count: max(0, 22 - cpu.count)) + cpu
                    + String(format: "  %10.2f", phase.toolCPU))
        }
        for pair in stride(from: 0, to: phases.count - 1, by: 2) {
            let plain = phases[pair], deflated = phases[pair + 1]
            var line = String(
                format: "%@: deflate sends %.0f%% of the bytes", plain.traffic as NSString,
                100 * Double(deflated.wireBytes) / Double(max(1, plain.wireBytes)))
            if let a = plain.serverCPU, let b = deflated.serverCPU {
                line += String(format: ", server CPU %+.0f%%", 100 * (b - a) / max(a, 1e-9))
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private static func phase(
        _ settings: Settings, traffic: String, channel: String, compressed: Bool,
        events: (Int) -> (name: String, data: String)
    ) throws -> Phase {
        let n = settings.subscribers
        let subscribers = try CountingSubscribers(
            count: n, host: settings.target.host, port: settings.target.port, key: settings.target.key,
            channel: channel, offerDeflate: compressed)
        defer { subscribers.stop() }
        // connection_established and subscription_succeeded each; then the channel's subscription_count, which a
        // busy channel gets at the hub's next sweep (about a second later), before counting starts.
        guard subscribers.waitForFrames(2 * n, timeout: .seconds(60)) else {
            throw CompressionBenchmarkError("subscribers did not all subscribe to \(channel)")
        }
        Thread.sleep(forTimeInterval: 1.5)
        subscribers.resetCounts()
        let publisher = try SignedPublisher(settings.target)
        let server = settings.serverPID.map(ServerProcess.init(pid:))
        let cpuBefore = server?.cpuSeconds()
        let toolBefore = ServerProcess(pid: getpid()).cpuSeconds() ?? 0
        let start = ContinuousClock.now
        var payloadBytes = 0
        for i in 0..<settings.events {
            let event = events(i)
            payloadBytes += frameLength(channel: channel, name: event.name, data: event.data)
            _ = try publisher.trigger(channel: channel, name: event.name, data: event.data)
            if !subscribers.waitForFrames((i + 1) * n, timeout: .seconds(10)) {
                throw CompressionBenchmarkError("event \(i) was not delivered to every subscriber within 10 s")
            }
        }
        let seconds = (ContinuousClock.now - start).seconds
        let cpu = server?.cpuSeconds().flatMap { after in cpuBefore.map { after - $0 } }
        let counts = subscribers.counts
        log("compression: \(traffic) \(compressed ? "deflate" : "plain"): \(counts.frames) deliveries in \(seconds) s")
        return Phase(
            traffic: traffic, compressed: compressed, deliveries: counts.frames, wireBytes: counts.bytes,
            compressedFrames: counts.compressed, payloadBytes: payloadBytes, serverCPU: cpu,
            toolCPU: (ServerProcess(pid: getpid()).cpuSeconds() ?? 0) - toolBefore, seconds: seconds)
    }

    /// The length of the server's frame payload for an event (`{"event":…,"channel":…,"data":"…"}`), uncompressed.
    private static func frameLength(channel: String, name: String, data: String) -> Int {
        let escaped = data.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\"") || $1 == UInt8(ascii: "\\") ? 2 : 1) }
        return #"{"event":"","channel":"","data":""}"#.utf8.count + name.utf8.count + channel.utf8.count + escaped
    }

    // MARK: Traffic

    /// The simulator's mix (`pushtop demo`): a price tick every 0.4 s, a chat line every 2.5 s, a sealed secret
    /// every 4 s, so about 10 ticks for 2 chat lines and 1 secret.
    static func demoEvent(_ i: Int) -> (name: String, data: String) {
        let symbols = ["ACME", "GLOBEX", "INITECH", "UMBRELLA", "HOOLI"]
        let lines = [
            "anyone else seeing the new build?", "deploy is green", "lunch?", "pushed a fix for the flaky test",
            "the dashboard looks great", "who owns the presence pane?", "brb", "ship it", "reviewing now",
        ]
        switch i % 13 {
        case 10, 11:
            return ("message", #"{"user":"\#(["Ada", "Grace", "Linus"][i % 3])","text":"\#(lines[i % lines.count])"}"#)
        case 12:
            // `private-encrypted-` data: a nonce and a ciphertext, random bytes in base64 (incompressible).
            let nonce = Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            let cipher = Data((0..<60).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            return ("secret", #"{"nonce":"\#(nonce)","ciphertext":"\#(cipher)"}"#)
        default:
            let price = 100 + Double(i % 97) * 0.37
            return (
                "price-update",
                String(
                    format: #"{"symbol":"%@","price":%.2f,"change_pct":%.2f,"ts":%d}"#,
                    symbols[i % symbols.count] as NSString, price, Double(i % 11) * 0.07 - 0.35,
                    1_732_190_000_123 + i * 400)
            )
        }
    }

    /// An order of about 1 KB of JSON, different numbers in each.
    static func kilobyteJSON(_ i: Int) -> String {
        let items = (0..<6).map { k in
            #"{"sku":"SKU-\#(1000 + (i * 7 + k * 13) % 9000)","name":"Widget model \#(k + 1)","quantity":\#(1 + (i + k) % 5),"unit_price":\#(9 + (i * k) % 90).99,"currency":"EUR"}"#
        }
        return
            #"{"order_id":"ord_\#(100_000 + i)","status":"confirmed","customer":{"id":"cus_\#(5000 + i % 300)","name":"Customer \#(i % 300)","email":"customer\#(i % 300)@example.com","tier":"gold"},"items":[\#(items.joined(separator: ","))],"shipping":{"method":"express","address":{"street":"\#(i % 200) Main Street","city":"Springfield","postcode":"\#(10_000 + i % 80_000)","country":"DE"}},"created_at":"2026-11-26T07:\#(10 + i % 50):00Z"}"#
    }
}

struct CompressionBenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Raw subscribers of one channel read by one thread with `poll`: they count every byte and every data frame they
/// read (and the frames with RSV1, compressed), and inflate nothing.
final class CountingSubscribers: @unchecked Sendable {
    // The reader thread owns `sockets` and `pending` while it runs.
    private let sockets: [RawSocket]
    private var pending: [[UInt8]]
    private let frames = Atomic<Int>(0)
    private let compressed = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(count: Int, host: String, port: Int, key: String, channel: String, offerDeflate: Bool) throws {
        var sockets: [RawSocket] = []
        var leftovers: [[UInt8]] = []
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        for _ in 0..<count {
            let socket = try RawSocket.connect(host: host, port: port)
            socket.setReceiveTimeout(seconds: 10)
            let nonce = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            try socket.writeAll(
                Array(
                    ("GET /app/\(key)?protocol=7&client=pushtop-benchmarks HTTP/1.1\r\nHost: \(host):\(port)\r\n"
                        + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(nonce)\r\n"
                        + "Sec-WebSocket-Version: 13\r\n"
                        + (offerDeflate
                            ? "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" : "")
                        + "\r\n").utf8))
            // The response head; connection_established may follow in the same read.
            var head: [UInt8] = []
            let marker = Array("\r\n\r\n".utf8)
            var end: Int?
            while end == nil {
                let n = try socket.read(into: &scratch)
                guard n > 0 else { throw CompressionBenchmarkError("the server closed during the upgrade") }
                head.append(contentsOf: scratch[0..<n])
                end = head.firstRange(of: marker)?.upperBound
            }
            let text = String(decoding: head[..<end!], as: UTF8.self)
            guard text.hasPrefix("HTTP/1.1 101") else { throw CompressionBenchmarkError("upgrade refused: \(text)") }
            guard text.lowercased().contains("permessage-deflate") == offerDeflate else {
                throw CompressionBenchmarkError("the server \(offerDeflate ? "declined" : "imposed") compression")
            }
            leftovers.append(Array(head[end!...]))
            try socket.writeAll(Self.maskedText(#"{"event":"pusher:subscribe","data":{"channel":"\#(channel)"}}"#))
            socket.setNonBlocking()
            sockets.append(socket)
        }
        self.sockets = sockets
        pending = leftovers
        let thread = Thread { [self] in
            readLoop()
            finished.signal()
        }
        thread.name = "counting-subscribers"
        thread.start()
    }

    /// Frames, compressed frames and bytes read since the last reset.
    var counts: (frames: Int, compressed: Int, bytes: Int) {
        (frames.load(ordering: .relaxed), compressed.load(ordering: .relaxed), bytes.load(ordering: .relaxed))
    }

    func resetCounts() {
        frames.store(0, ordering: .sequentiallyConsistent)
        compressed.store(0, ordering: .sequentiallyConsistent)
        bytes.store(0, ordering: .sequentiallyConsistent)
    }

    /// Waits until `total` data frames were read since the last reset; false after the timeout.
    func waitForFrames(_ total: Int, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while frames.load(ordering: .relaxed) < total {
            guard ContinuousClock.now < deadline else { return false }
            usleep(200)
        }
        return true
    }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        finished.wait()
        for socket in sockets { socket.close() }
    }

    private func readLoop() {
        var polled = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var scratch = [UInt8](repeating: 0, count: 256 * 1024)
        while !stopping.load(ordering: .relaxed) {
            guard poll(&polled, nfds_t(polled.count), 20) > 0 else { continue }
            for index in polled.indices where polled[index].revents != 0 {
                while let n = try? sockets[index].read(into: &scratch), n > 0 {
                    bytes.add(n, ordering: .relaxed)
                    pending[index].append(contentsOf: scratch[0..<n])
                    consume(index)
                    if n < scratch.count { break }
                }
            }
        }
    }

    private func consume(_ index: Int) {
        var position = 0
        var counted = 0
        var rsv1 = 0
        let buffer = pending[index]
        while let (first, end) = Self.frame(in: buffer, at: position) {
            if first & 0x0F == 0x1 {
                counted += 1
                if first & 0x40 != 0 { rsv1 += 1 }
            }
            position = end
        }
        pending[index].removeFirst(position)
        if rsv1 > 0 { compressed.add(rsv1, ordering: .relaxed) }
        if counted > 0 { frames.add(counted, ordering: .relaxed) }
    }

    /// The first byte and the end of the whole frame at `position`, if it is all there.
    private static func frame(in bytes: [UInt8], at position: Int) -> (UInt8, Int)? {
        guard bytes.count - position >= 2 else { return nil }
        var length = Int(bytes[position + 1] & 0x7F)
        var header = 2
        if length == 126 {
            guard bytes.count - position >= 4 else { return nil }
            length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            header = 4
        } else if length == 127 {
            guard bytes.count - position >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[position + $1]) }
            header = 10
        }
        guard bytes.count - position >= header + length else { return nil }
        return (bytes[position], position + header + length)
    }

    private static func maskedText(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        precondition(payload.count < 126)
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        return [0x81, 0x80 | UInt8(payload.count)] + mask
            + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }
}
