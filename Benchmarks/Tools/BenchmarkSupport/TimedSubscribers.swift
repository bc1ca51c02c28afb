import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Many raw WebSocket subscribers of one channel read by one thread (epoll on Linux), each delivery timed:
/// the least a subscriber can do, so the latencies are the server's and not a client library's.
///
/// Events are recognised by their data, `{"bench":[STREAM,SEQ,T]}` (see ``eventData(stream:sequence:sentAt:)``):
/// T is when the publisher sent it (``monotonicNanoseconds()``, the same clock in one process); the reader
/// thread timestamps each read and records read time − T per event. SEQ numbers each STREAM (one per publishing
/// connection) from 0, and every subscriber checks that it sees 0, 1, 2… of every stream. Events of a STREAM
/// beyond the `streams` given to ``connect(count:host:port:key:channel:streams:)`` (warm-up) are counted only.
public final class TimedSubscribers: @unchecked Sendable {
    // The reader thread owns `sockets`, `pending`, `nextSequence`, `latencies` and `outOfOrder` while it runs;
    // `report()` reads them after it has stopped.
    private let sockets: [RawSocket]
    private var pending: [[UInt8]]
    private let streams: Int
    private var nextSequence: [Int]
    private var latencies: [UInt64] = []
    private var outOfOrder = 0
    private let delivered = Atomic<Int>(0)
    private let waitTarget = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let reached = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// The data of a bench event: its stream, its number in the stream and its send time.
    public static func eventData(stream: Int, sequence: Int, sentAt: UInt64) -> String {
        #"{"bench":[\#(stream),\#(sequence),\#(sentAt)]}"#
    }

    private init(sockets: [RawSocket], pending: [[UInt8]], streams: Int) {
        self.sockets = sockets
        self.pending = pending
        self.streams = streams
        nextSequence = Array(repeating: 0, count: sockets.count * streams)
    }

    /// Connects `count` subscribers to `ws://host:port/app/key` one after another and subscribes each to
    /// `channel`; returns when every one has its `subscription_succeeded`. `streams` is the number of publishing
    /// streams whose sequence numbers are checked.
    public static func connect(
        count: Int, host: String = "127.0.0.1", port: Int, key: String, channel: String, streams: Int = 1
    ) throws(RawSocketError) -> TimedSubscribers {
        try connect(count: count, host: host, ports: [port], key: key, channel: channel, streams: streams)
    }

    /// As ``connect(count:host:port:key:channel:streams:)``, subscriber `i` on `ports[i % ports.count]` (the
    /// nodes of a cluster).
    public static func connect(
        count: Int, host: String = "127.0.0.1", ports: [Int], key: String, channel: String, streams: Int = 1
    ) throws(RawSocketError) -> TimedSubscribers {
        var sockets: [RawSocket] = []
        var leftovers: [[UInt8]] = []
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        for index in 0..<count {
            let port = ports[index % ports.count]
            let socket = try RawSocket.connect(host: host, port: port)
            socket.setReceiveTimeout(seconds: 10)
            let nonce = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            try socket.writeAll(
                Array(
                    ("GET /app/\(key)?protocol=7&client=pushtop-benchmarks HTTP/1.1\r\nHost: \(host):\(port)\r\n"
                        + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(nonce)\r\n"
                        + "Sec-WebSocket-Version: 13\r\n\r\n").utf8))
            var buffer: [UInt8] = []
            let marker = Array("\r\n\r\n".utf8)
            var headerEnd: Int?
            while headerEnd == nil {
                let n = try socket.read(into: &scratch)
                guard n > 0 else { throw .closed }
                buffer.append(contentsOf: scratch[0..<n])
                headerEnd = Self.find(marker, in: buffer[...]).map { $0 + marker.count }
            }
            guard buffer.count > 12, String(decoding: buffer[9..<12], as: UTF8.self) == "101" else { throw .closed }
            buffer.removeFirst(headerEnd!)
            try socket.writeAll(Self.maskedText(#"{"event":"pusher:subscribe","data":{"channel":"\#(channel)"}}"#))
            let succeeded = Array("subscription_succeeded".utf8)
            var subscribed = false
            while !subscribed {
                while let (opcode, start, end) = Self.frame(in: buffer[...]) {
                    if opcode == 0x1, Self.find(succeeded, in: buffer[start..<end]) != nil { subscribed = true }
                    buffer.removeFirst(end)
                }
                if subscribed { break }
                let n = try socket.read(into: &scratch)
                guard n > 0 else { throw .closed }
                buffer.append(contentsOf: scratch[0..<n])
            }
            socket.setNonBlocking()
            sockets.append(socket)
            leftovers.append(buffer)
        }
        return TimedSubscribers(sockets: sockets, pending: leftovers, streams: streams)
    }

    /// Bench events read so far.
    public var deliveredCount: Int { delivered.load(ordering: .relaxed) }

    /// Starts the reader thread.
    public func start() {
        let thread = Thread { [self] in
            readLoop()
            finished.signal()
        }
        thread.name = "timed-subscribers"
        thread.start()
    }

    /// Blocks until `total` bench events have been read in all, or the timeout passes; true when they have.
    public func waitForDeliveries(_ total: Int, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        waitTarget.store(total, ordering: .sequentiallyConsistent)
        while delivered.load(ordering: .sequentiallyConsistent) < total {
            guard ContinuousClock.now < deadline else { return false }
            _ = reached.wait(timeout: .now() + .milliseconds(5))
        }
        return true
    }

    /// Stops the reader thread, closes the sockets and returns what was read.
    public func stop() -> DeliveryReport {
        stopping.store(true, ordering: .sequentiallyConsistent)
        finished.wait()
        for socket in sockets { socket.close() }
        return DeliveryReport(latencies: latencies.sorted(), outOfOrder: outOfOrder)
    }

    // MARK: Reading (the reader thread)

    private func readLoop() {
        #if os(Linux)
            let epoll = Epoll()
            for (index, socket) in sockets.enumerated() { epoll.add(socket.fd, token: UInt64(index)) }
        #else
            var polled = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        #endif
        var scratch = [UInt8](repeating: 0, count: 256 * 1024)
        for index in pending.indices where !pending[index].isEmpty {
            consume(subscriber: index, bytes: [], now: monotonicNanoseconds())
        }
        while !stopping.load(ordering: .relaxed) {
            #if os(Linux)
                for token in epoll.wait(milliseconds: 50) { drain(subscriber: Int(token), scratch: &scratch) }
            #else
                let count = Int(poll(&polled, nfds_t(polled.count), 50))
                if count > 0 {
                    for i in polled.indices where polled[i].revents != 0 { drain(subscriber: i, scratch: &scratch) }
                }
            #endif
            let target = waitTarget.load(ordering: .sequentiallyConsistent)
            if target > 0, delivered.load(ordering: .sequentiallyConsistent) >= target {
                waitTarget.store(0, ordering: .sequentiallyConsistent)
                reached.signal()
            }
        }
    }

    private func drain(subscriber: Int, scratch: inout [UInt8]) {
        while true {
            guard let n = try? sockets[subscriber].read(into: &scratch), n > 0 else { return }
            consume(subscriber: subscriber, bytes: scratch[0..<n], now: monotonicNanoseconds())
            if n < scratch.count { return }
        }
    }

    private func consume(subscriber: Int, bytes: ArraySlice<UInt8>, now: UInt64) {
        var events = 0
        if pending[subscriber].isEmpty {
            // The usual case: whole frames in one read, nothing kept.
            let end = parse(subscriber: subscriber, bytes, now: now, events: &events)
            if end < bytes.endIndex { pending[subscriber].append(contentsOf: bytes[end...]) }
        } else {
            pending[subscriber].append(contentsOf: bytes)
            let buffer = pending[subscriber]
            let end = parse(subscriber: subscriber, buffer[...], now: now, events: &events)
            pending[subscriber].removeFirst(end)
        }
        if events > 0 { delivered.add(events, ordering: .relaxed) }
    }

    /// Handles every whole frame in `bytes`; returns where the first incomplete one starts.
    private func parse(subscriber: Int, _ bytes: ArraySlice<UInt8>, now: UInt64, events: inout Int) -> Int {
        var position = bytes.startIndex
        while let (opcode, start, end) = Self.frame(in: bytes[position...]) {
            if opcode == 0x1, let (stream, sequence, sentAt) = Self.benchFields(bytes[start..<end]) {
                if stream < streams {
                    latencies.append(now >= sentAt ? now - sentAt : 0)
                    let slot = subscriber * streams + stream
                    if sequence != nextSequence[slot] { outOfOrder += 1 }
                    nextSequence[slot] = sequence + 1
                }
                events += 1
            }
            position = end
        }
        return position
    }

    // MARK: Frames

    /// The first whole server frame of `bytes`: opcode and payload range.
    static func frame(in bytes: ArraySlice<UInt8>) -> (UInt8, Int, Int)? {
        let base = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let opcode = bytes[base] & 0x0F
        let short = Int(bytes[base + 1] & 0x7F)
        var header = 2
        var length = short
        if short == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[base + 2]) << 8 | Int(bytes[base + 3])
            header = 4
        } else if short == 127 {
            guard bytes.count >= 10 else { return nil }
            length = 0
            for i in 2..<10 { length = length << 8 | Int(bytes[base + i]) }
            header = 10
        }
        guard bytes.count >= header + length else { return nil }
        return (opcode, base + header, base + header + length)
    }

    /// STREAM, SEQ and T of a bench event's frame, found after the `bench\":[` of its JSON-encoded data.
    static func benchFields(_ payload: ArraySlice<UInt8>) -> (Int, Int, UInt64)? {
        guard var i = find(benchMarker, in: payload) else { return nil }
        i += benchMarker.count
        var numbers: [UInt64] = [0, 0, 0]
        for slot in 0..<3 {
            var digits = 0
            while i < payload.endIndex, payload[i] >= 0x30, payload[i] <= 0x39 {
                numbers[slot] = numbers[slot] &* 10 &+ UInt64(payload[i] - 0x30)
                i += 1
                digits += 1
            }
            guard digits > 0 else { return nil }
            i += 1  // the comma
        }
        return (Int(numbers[0]), Int(numbers[1]), numbers[2])
    }

    private static let benchMarker = Array(#"bench\":["#.utf8)

    static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count, let first = needle.first else { return nil }
        var start = haystack.startIndex
        let last = haystack.endIndex - needle.count
        while start <= last {
            if haystack[start] == first {
                var matched = true
                for k in 1..<needle.count where haystack[start + k] != needle[k] {
                    matched = false
                    break
                }
                if matched { return start }
            }
            start += 1
        }
        return nil
    }

    static func maskedText(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        precondition(payload.count < 126)
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        return [0x81, 0x80 | UInt8(payload.count)] + mask
            + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }
}

/// What timed subscribers read: every delivery's latency and the sequence breaks seen.
public struct DeliveryReport: Sendable {
    /// Latencies in nanoseconds (send → read), sorted.
    public let latencies: [UInt64]
    /// Events that were not the next number of their stream for their subscriber (lost, repeated or reordered).
    public let outOfOrder: Int

    /// The latency at quantile `q` (0...1), in milliseconds.
    public func milliseconds(at q: Double) -> Double {
        guard !latencies.isEmpty else { return .nan }
        let index = min(latencies.count - 1, Int((Double(latencies.count) * q).rounded(.up)) - 1)
        return Double(latencies[max(0, index)]) / 1e6
    }
}
