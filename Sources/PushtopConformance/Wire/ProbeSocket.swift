import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import PusherChannels
import PusherProtocol
import Synchronization

/// A WebSocket connection that does what a case tells it, frame by frame, and remembers every frame.
///
/// Unlike the client core it has no rules of its own: it sends what it is given (text, binary, ping, close, bytes
/// that are not UTF-8), answers pings as any client would, and lets a case wait for the frame it expects.
public final class ProbeSocket: Sendable {
    /// Where the socket connected.
    public let url: String
    private let opened: ContinuousClock.Instant
    private let state = Mutex(State())
    private let channel: any Channel

    struct Waiter {
        var id: Int
        var from: Int
        var predicate: @Sendable (ProbeFrame) -> Bool
        var continuation: CheckedContinuation<(Int, ProbeFrame)?, Never>
    }

    struct State {
        var frames: [ProbeFrame] = []
        var waiters: [Waiter] = []
        var nextWaiter = 0
        var ended = false
        var sentClose = false
        var textBytesSent = 0
        var answersPings = true
    }

    private init(url: String, channel: any Channel, opened: ContinuousClock.Instant) {
        self.url = url
        self.channel = channel
        self.opened = opened
    }

    /// Opens a WebSocket to `url` (`ws://` or `wss://`), with extra request headers (an `Origin`, say), through
    /// `PusherChannels`' `WebSocketDialer`: frames sent with the `101`, or just before a dropped connection, are kept.
    /// - Parameters:
    ///   - timeout: seconds for TCP, then as many for TLS and the upgrade.
    ///   - caFile: a PEM file of extra certificate authorities for `wss://`.
    public static func connect(
        url: String, headers: [(String, String)] = [], timeout: Double = 10, caFile: String? = nil
    ) async throws(ProbeError) -> ProbeSocket {
        guard let target = WebSocketURL(url) else { throw .badURL(url) }
        var tls: NIOSSLContext?
        if target.useTLS {
            do { tls = try WebSocketDialer.makeTLSContext(caFile: caFile) } catch {
                throw .unreachable("TLS setup failed: \(error)")
            }
        }
        let started = ContinuousClock.now
        let box = SocketBox()
        let limit = TimeAmount.milliseconds(Int64(timeout * 1000))
        let dialer = WebSocketDialer(
            url: target, headers: HTTPHeaders(headers), tls: tls, connectTimeout: limit, handshakeTimeout: limit)
        let dial = dialer.dial(on: MultiThreadedEventLoopGroup.singleton.any()) { channel, _ in
            try channel.pipeline.syncOperations.addHandler(ProbeFrameHandler(box: box))
        }
        let channel: any Channel
        do {
            channel = try await dial.channel.get()
            _ = try await dial.upgraded.get()
        } catch {
            throw Self.probeError(error, timeout: timeout)
        }
        let socket = ProbeSocket(url: url, channel: channel, opened: started)
        box.attach(socket)
        return socket
    }

    /// What a failed dial says to a case.
    static func probeError(_ error: any Error, timeout: Double) -> ProbeError {
        switch error {
        case WebSocketDialError.refused(let status, let reason): return .refused(status: status, reason: reason)
        case WebSocketDialError.timedOut: return .unreachable("no answer to the WebSocket upgrade within \(timeout) s")
        case WebSocketDialError.connect(let cause), WebSocketDialError.failed(let cause):
            return .unreachable(WebSocketDialError.describe(cause))
        case let error as WebSocketDialError: return .unreachable(error.description)
        default: return .unreachable(WebSocketDialError.describe(error))
        }
    }

    // MARK: - Sending

    /// Sends a text frame.
    public func send(_ text: String) {
        state.withLock { $0.textBytesSent += text.utf8.count }
        record(.sent, .text(text))
        write(opcode: .text, bytes: Array(text.utf8))
    }

    /// Sends a Pusher message built from fields (`data` is written as given: a string or an object).
    public func send(event: String, channel: String? = nil, data: JSONValue? = nil) {
        var fields: [(String, JSONValue)] = [("event", .string(event))]
        if let channel { fields.append(("channel", .string(channel))) }
        if let data { fields.append(("data", data)) }
        send(JSONValue.orderedObject(fields))
    }

    /// Sends a frame of any opcode with any payload (a binary frame, bytes that are not UTF-8 in a text frame).
    public func sendFrame(opcode: WebSocketOpcode, bytes: [UInt8], fin: Bool = true) {
        switch opcode {
        case .text: record(.sent, .text(String(decoding: bytes, as: UTF8.self)))
        case .binary: record(.sent, .binary(bytes.count))
        case .ping: record(.sent, .ping)
        case .pong: record(.sent, .pong)
        default: break
        }
        write(opcode: opcode, bytes: bytes, fin: fin)
    }

    /// Sends a close frame with `code`; the server's reply (or the end of the connection) shows in ``frames``.
    public func close(code: Int = 1000, reason: String = "") {
        let first = state.withLock { s -> Bool in
            defer { s.sentClose = true }
            return !s.sentClose
        }
        guard first else { return }
        record(.sent, .close(code: code, reason: reason))
        var payload = [UInt8(code >> 8 & 0xff), UInt8(code & 0xff)]
        payload += Array(reason.utf8)
        write(opcode: .connectionClose, bytes: payload)
    }

    /// Drops the TCP connection without a close frame (a tab killed, a network cut).
    public func drop() {
        channel.close(promise: nil)
    }

    /// Closes politely and waits (up to `timeout`) for the connection to end.
    public func closeAndWait(timeout: Double = 3) async {
        close()
        _ = await waitFor(timeout) { if case .ended = $0.kind { true } else { false } }
        drop()
    }

    private func write(opcode: WebSocketOpcode, bytes: [UInt8], fin: Bool = true) {
        let channel = self.channel
        channel.eventLoop.execute {
            let buffer = channel.allocator.buffer(bytes: bytes)
            let frame = WebSocketFrame(fin: fin, opcode: opcode, maskKey: .random(), data: buffer)
            channel.writeAndFlush(frame, promise: nil)
        }
    }

    // MARK: - Receiving

    /// Every frame so far, both directions, in order.
    public var frames: [ProbeFrame] { state.withLock { $0.frames } }

    /// The number of frames so far: a cursor for ``waitFor(_:from:_:)``.
    public var count: Int { state.withLock { $0.frames.count } }

    /// Whether the connection has ended.
    public var hasEnded: Bool { state.withLock { $0.ended } }

    /// Seconds since the socket was opened (the clock of ``ProbeFrame/at``).
    public var age: Double { Self.seconds(ContinuousClock.now - opened) }

    /// The first frame at or after index `from` that matches, waiting up to `timeout` seconds for it; `nil` when none
    /// came in time or the connection ended without one.
    @discardableResult
    public func waitFor(
        _ timeout: Double, from: Int = 0, _ predicate: @escaping @Sendable (ProbeFrame) -> Bool
    ) async -> ProbeFrame? {
        await waitIndexed(timeout, from: from, predicate)?.1
    }

    /// Like ``waitFor(_:from:_:)``, with the frame's index.
    public func waitIndexed(
        _ timeout: Double, from: Int = 0, _ predicate: @escaping @Sendable (ProbeFrame) -> Bool
    ) async -> (Int, ProbeFrame)? {
        let id = state.withLock { s -> Int in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
            self?.expire(id)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<(Int, ProbeFrame)?, Never>) in
                // Resumed outside the lock: resuming takes the task's own lock, which a cancellation handler holds
                // while it waits for this one (``expire(_:)``), so resuming under it could deadlock.
                let answer = state.withLock { s -> (Int, ProbeFrame)?? in
                    let start = max(0, from)
                    if start < s.frames.count, let hit = s.frames[start...].firstIndex(where: predicate) {
                        return .some((hit, s.frames[hit]))
                    } else if s.ended {
                        return .some(nil)
                    } else {
                        s.waiters.append(Waiter(id: id, from: start, predicate: predicate, continuation: continuation))
                        return nil
                    }
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            expire(id)
        }
    }

    private func expire(_ id: Int) {
        let expired = state.withLock { s -> Waiter? in
            guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return s.waiters.remove(at: index)
        }
        expired?.continuation.resume(returning: nil)
    }

    func record(_ direction: ProbeFrame.Direction, _ kind: ProbeFrame.Kind) {
        let at = Self.seconds(ContinuousClock.now - opened)
        // The waiters are resumed after the lock is released (see ``waitIndexed(_:from:_:)``).
        let resumed = state.withLock { s -> [(Waiter, (Int, ProbeFrame)?)] in
            if case .ended = kind {
                if s.ended { return [] }
                s.ended = true
            }
            s.frames.append(ProbeFrame(direction: direction, kind: kind, at: at))
            let index = s.frames.count - 1
            let frame = s.frames[index]
            var waiting: [Waiter] = []
            var resumed: [(Waiter, (Int, ProbeFrame)?)] = []
            for waiter in s.waiters {
                if index >= waiter.from, waiter.predicate(frame) {
                    resumed.append((waiter, (index, frame)))
                } else if s.ended {
                    resumed.append((waiter, nil))
                } else {
                    waiting.append(waiter)
                }
            }
            s.waiters = waiting
            return resumed
        }
        for (waiter, answer) in resumed { waiter.continuation.resume(returning: answer) }
    }

    /// The peer sent a close frame: answer it, as RFC 6455 asks, unless we closed first.
    func peerClosed(code: Int?, reason: String) {
        record(.received, .close(code: code, reason: reason))
        let answer = state.withLock { s -> Bool in
            defer { s.sentClose = true }
            return !s.sentClose
        }
        if answer {
            var payload: [UInt8] = []
            if let code { payload = [UInt8(code >> 8 & 0xff), UInt8(code & 0xff)] }
            write(opcode: .connectionClose, bytes: payload)
        }
        channel.eventLoop.scheduleTask(in: .seconds(1)) { [channel] in channel.close(promise: nil) }
    }

    func answerPing(_ payload: [UInt8]) {
        guard state.withLock({ $0.answersPings }) else { return }
        write(opcode: .pong, bytes: payload)
    }

    /// From now on WebSocket pings are not answered (a client that stopped responding).
    public func stopAnsweringPings() {
        state.withLock { $0.answersPings = false }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Hands frames from the pipeline to the socket, which exists only once the upgrade is done; frames that arrive
/// before (in the same read as the 101, or while the socket is being attached) wait here and are delivered first, in
/// arrival order: a refusal followed at once by the end of the connection is recorded in that order.
final class SocketBox: Sendable {
    private struct State {
        var socket: ProbeSocket?
        var early: [(ProbeFrame.Direction, ProbeFrame.Kind)] = []
        /// Early frames are being handed over: later ones queue behind them.
        var draining = false
    }

    private let state = Mutex(State())

    func attach(_ socket: ProbeSocket) {
        state.withLock {
            $0.socket = socket
            $0.draining = true
        }
        drain(socket)
    }

    /// Delivers queued frames until none is left, then lets frames through directly.
    private func drain(_ socket: ProbeSocket) {
        while true {
            let next = state.withLock { s -> [(ProbeFrame.Direction, ProbeFrame.Kind)] in
                if s.early.isEmpty { s.draining = false }
                defer { s.early = [] }
                return s.early
            }
            if next.isEmpty { return }
            for (direction, kind) in next { deliver(socket, direction, kind) }
        }
    }

    func receive(_ kind: ProbeFrame.Kind) {
        let socket = state.withLock { s -> ProbeSocket? in
            if s.socket == nil || s.draining {
                s.early.append((.received, kind))
                return nil
            }
            return s.socket
        }
        if let socket { deliver(socket, .received, kind) }
    }

    private func deliver(_ socket: ProbeSocket, _ direction: ProbeFrame.Direction, _ kind: ProbeFrame.Kind) {
        if case .close(let code, let reason) = kind {
            socket.peerClosed(code: code, reason: reason)
        } else {
            socket.record(direction, kind)
        }
    }

    func ping(_ payload: [UInt8]) {
        receive(.ping)
        state.withLock { $0.socket }?.answerPing(payload)
    }
}
