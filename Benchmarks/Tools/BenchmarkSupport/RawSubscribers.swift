import Crypto
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// Many minimal WebSocket subscribers on one channel, for fan-out benchmarks: each does the upgrade, sends
/// `pusher:subscribe` and then only counts the text frames it receives (no JSON, no client core), so the figures
/// are the server's, not a client's.
public final class RawSubscribers: Sendable {
    private let channels: [any Channel]
    private let counter: FrameCounter

    private init(channels: [any Channel], counter: FrameCounter) {
        self.channels = channels
        self.counter = counter
    }

    /// Connects `count` subscribers to `ws://127.0.0.1:port/app/key` and subscribes each to `channel`; returns when
    /// every one has received `subscription_succeeded`.
    public static func connect(count: Int, port: Int, key: String, channel: String) async throws -> RawSubscribers {
        let counter = FrameCounter()
        var channels: [any Channel] = []
        channels.reserveCapacity(count)
        for _ in 0..<count {
            let ch = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { ch in
                    ch.eventLoop.makeCompletedFuture {
                        try ch.pipeline.syncOperations.addHandler(
                            CountingHandler(key: key, port: port, channel: channel, counter: counter))
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
            channels.append(ch)
        }
        // Everyone subscribed: `connection_established` and `subscription_succeeded` each, per subscriber.
        try await counter.wait(for: 2 * count, timeout: .seconds(60))
        counter.reset()
        return RawSubscribers(channels: channels, counter: counter)
    }

    /// Waits until the subscribers together have received `frames` text frames since the last wait; then resets.
    public func waitForFrames(_ frames: Int, timeout: Duration = .seconds(30)) async throws {
        try await counter.wait(for: frames, timeout: timeout)
        counter.reset()
    }

    /// Closes every connection.
    public func close() async {
        for ch in channels { try? await ch.close() }
    }
}

/// Why a benchmark's subscribers failed.
public struct SubscriberTimeout: Error, CustomStringConvertible {
    public let expected: Int
    public let received: Int
    public var description: String { "subscribers received \(received) of \(expected) frames before the timeout" }
}

final class FrameCounter: Sendable {
    private struct State {
        var count = 0
        var target = Int.max
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func add(_ n: Int) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
            s.count += n
            guard s.count >= s.target, let w = s.waiter else { return nil }
            s.waiter = nil
            return w
        }
        waiter?.resume()
    }

    func reset() {
        state.withLock {
            $0.count = 0; $0.target = .max
        }
    }

    func wait(for target: Int, timeout: Duration) async throws {
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            let waiter = self?.state.withLock { s -> CheckedContinuation<Void, Never>? in
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.count >= target { return true }
                s.target = target
                s.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        timer.cancel()
        let received = state.withLock { $0.count }
        if received < target { throw SubscriberTimeout(expected: target, received: received) }
    }
}

private final class CountingHandler: ChannelInboundHandler, @unchecked Sendable {
    // Used only on its channel's event loop.
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let key: String
    let port: Int
    let channel: String
    let counter: FrameCounter
    var upgraded = false
    var pending = ByteBuffer()

    init(key: String, port: Int, channel: String, counter: FrameCounter) {
        self.key = key
        self.port = port
        self.channel = channel
        self.counter = counter
    }

    func channelActive(context: ChannelHandlerContext) {
        let nonce = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let request =
            "GET /app/\(key)?protocol=7&client=bench HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(nonce)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: request)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending.writeBuffer(&buffer)
        if !upgraded {
            guard let end = pending.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            pending.moveReaderIndex(to: end.upperBound)
            upgraded = true
            var frame = ByteBuffer()
            Self.writeMaskedText(#"{"event":"pusher:subscribe","data":{"channel":"\#(channel)"}}"#, into: &frame)
            context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        }
        var frames = 0
        while let header = Self.frameLength(pending) {
            guard pending.readableBytes >= header.total else { break }
            if header.opcode == 0x1 { frames += 1 }
            pending.moveReaderIndex(forwardBy: header.total)
        }
        pending.discardReadBytes()
        if frames > 0 { counter.add(frames) }
    }

    static func frameLength(_ b: ByteBuffer) -> (opcode: UInt8, total: Int)? {
        guard b.readableBytes >= 2, let first = b.getInteger(at: b.readerIndex, as: UInt8.self),
            let second = b.getInteger(at: b.readerIndex + 1, as: UInt8.self)
        else { return nil }
        let short = Int(second & 0x7F)
        if short < 126 { return (first & 0x0F, 2 + short) }
        if short == 126 {
            guard let n = b.getInteger(at: b.readerIndex + 2, as: UInt16.self) else { return nil }
            return (first & 0x0F, 4 + Int(n))
        }
        guard let n = b.getInteger(at: b.readerIndex + 2, as: UInt64.self) else { return nil }
        return (first & 0x0F, 10 + Int(n))
    }

    static func writeMaskedText(_ text: String, into buffer: inout ByteBuffer) {
        let payload = Array(text.utf8)
        buffer.writeInteger(UInt8(0x81))
        precondition(payload.count < 126)
        buffer.writeInteger(UInt8(0x80 | UInt8(payload.count)))
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        buffer.writeBytes(mask)
        buffer.writeBytes(payload.enumerated().map { $0.element ^ mask[$0.offset % 4] })
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
