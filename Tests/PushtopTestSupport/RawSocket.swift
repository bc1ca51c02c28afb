import Foundation

#if canImport(Glibc)
    import Glibc
    private let systemSend = Glibc.send
    private let systemConnect = Glibc.connect
    private let systemClose = Glibc.close
#elseif canImport(Darwin)
    import Darwin
    private let systemSend = Darwin.send
    private let systemConnect = Darwin.connect
    private let systemClose = Darwin.close
#endif

/// A blocking TCP socket on loopback, for tests that must speak raw HTTP or WebSocket: malformed requests,
/// unmasked or fragmented frames, a connection cut with RST (`SO_LINGER` 0) or FIN without a close handshake.
///
/// Calls block: run them through ``offloaded(_:)`` so they never hold a thread of Swift's cooperative pool.
/// One socket is used by one thread at a time.
public final class RawSocket: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// One frame received from the server.
    public struct Frame: Sendable {
        public var fin: Bool
        /// RSV1: with permessage-deflate, the message is compressed.
        public var rsv1 = false
        public var opcode: UInt8
        public var payload: [UInt8]
        public var text: String { String(decoding: payload, as: UTF8.self) }
        /// The close code of a close frame.
        public var closeCode: Int? {
            opcode == 0x8 && payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
        }
    }

    private let fd: Int32
    private var buffered: [UInt8] = []
    private var isClosed = false

    /// Connects to 127.0.0.1:`port`; reads time out after `timeout` seconds. A `receiveBuffer` (bytes) makes the
    /// kernel buffer little, so that a client that does not read falls behind quickly.
    public init(port: Int, timeout: Double = 10, receiveBuffer: Int? = nil) throws {
        #if canImport(Glibc)
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed: \(errno)") }
        if var size = receiveBuffer.map(Int32.init) {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            // Closed here, so not again by deinit (which runs when an initializer throws after full
            // initialization): a second close could close a descriptor another thread has just opened.
            isClosed = true
            _ = systemClose(fd)
            throw Failure(description: "connect to port \(port) failed: errno \(error)")
        }
        setReadTimeout(timeout)
    }

    /// How long a read waits before it fails, in seconds.
    public func setReadTimeout(_ timeout: Double) {
        var time = timeval(tv_sec: Int(timeout), tv_usec: .init((timeout - Double(Int(timeout))) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        if !isClosed { _ = systemClose(fd) }
    }

    // MARK: Bytes

    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { systemSend(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            sent += n
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads what is available (blocking up to the timeout); empty at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffered.append(contentsOf: chunk[..<n])
            return true
        }
        if n == 0 { return false }
        if errno == EAGAIN || errno == EWOULDBLOCK { throw Failure(description: "timed out reading") }
        if errno == ECONNRESET { return false }
        throw Failure(description: "recv failed: errno \(errno)")
    }

    /// What one read brings, for a reader that polls: the bytes already buffered or received, `[]` when the read
    /// timed out (or was interrupted), `nil` at the end of the stream or on an error.
    public func readAvailable() -> [UInt8]? {
        if !buffered.isEmpty {
            defer { buffered = [] }
            return buffered
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 { return Array(chunk[..<n]) }
        if n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return [] }
        return nil
    }

    private func read(exactly count: Int) throws -> [UInt8] {
        while buffered.count < count {
            guard try fill() else {
                throw Failure(description: "connection ended after \(buffered.count) of \(count) bytes")
            }
        }
        let bytes = Array(buffered[..<count])
        buffered.removeFirst(count)
        return bytes
    }

    /// Everything the peer sends until it closes the connection (or the read times out: then `closed` is false).
    public func readToEnd() -> (bytes: [UInt8], closed: Bool) {
        do {
            while try fill() {}
            defer { buffered = [] }
            return (buffered, true)
        } catch {
            defer { buffered = [] }
            return (buffered, false)
        }
    }

    /// Exactly `count` bytes (an HTTP body of a known length), waiting for them up to the timeout.
    public func readBytes(_ count: Int) throws -> [UInt8] {
        try read(exactly: count)
    }

    /// An HTTP response head (status line and headers).
    public func readHTTPHead() throws -> String {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let range = buffered.firstRange(of: end) {
                let head = String(decoding: buffered[..<range.upperBound], as: UTF8.self)
                buffered.removeFirst(range.upperBound)
                return head
            }
            guard try fill() else { throw Failure(description: "connection ended before a response head") }
        }
    }

    /// Ends the connection with a FIN, without any close handshake.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = systemClose(fd)
    }

    /// Ends the connection with a RST (`SO_LINGER` with a zero timeout).
    public func abort() {
        guard !isClosed else { return }
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close()
    }

    // MARK: WebSocket

    /// Opens a WebSocket to `path` (handshake done, response checked).
    public static func webSocket(
        port: Int, path: String, timeout: Double = 10, receiveBuffer: Int? = nil
    ) throws -> RawSocket {
        try webSocketWithHead(port: port, path: path, timeout: timeout, receiveBuffer: receiveBuffer).socket
    }

    /// Opens a WebSocket to `path` with extra request header lines (`"Name: value"`, e.g. an extension offer);
    /// returns the socket and the 101 response's head.
    public static func webSocketWithHead(
        port: Int, path: String, headers: [String] = [], timeout: Double = 10, receiveBuffer: Int? = nil
    ) throws -> (socket: RawSocket, head: String) {
        let socket = try RawSocket(port: port, timeout: timeout, receiveBuffer: receiveBuffer)
        try socket.send(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                + headers.map { $0 + "\r\n" }.joined() + "\r\n")
        let head = try socket.readHTTPHead()
        guard head.hasPrefix("HTTP/1.1 101") else { throw Failure(description: "upgrade refused: \(head)") }
        return (socket, head)
    }

    /// Sends one frame; masked (as a client must) unless told otherwise; `rsv1` marks a compressed message.
    public func sendFrame(
        opcode: UInt8, payload: [UInt8], fin: Bool = true, masked: Bool = true, rsv1: Bool = false
    ) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ...125: frame.append(maskBit | UInt8(payload.count))
        case ...0xFFFF:
            frame.append(maskBit | 126)
            frame.append(contentsOf: [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)])
        default:
            frame.append(maskBit | 127)
            frame.append(contentsOf: (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) })
        }
        if masked {
            let key: [UInt8] = [0x12, 0x34, 0x56, 0x78]
            frame.append(contentsOf: key)
            frame.append(contentsOf: payload.enumerated().map { $0.element ^ key[$0.offset % 4] })
        } else {
            frame.append(contentsOf: payload)
        }
        try send(frame)
    }

    public func sendText(_ text: String) throws { try sendFrame(opcode: 0x1, payload: Array(text.utf8)) }

    /// Reads one frame from the server.
    public func readFrame() throws -> Frame {
        let header = try read(exactly: 2)
        var length = Int(header[1] & 0x7F)
        if length == 126 {
            let bytes = try read(exactly: 2)
            length = Int(bytes[0]) << 8 | Int(bytes[1])
        } else if length == 127 {
            length = try read(exactly: 8).reduce(0) { $0 << 8 | Int($1) }
        }
        let mask = header[1] & 0x80 != 0 ? try read(exactly: 4) : nil
        var payload = try read(exactly: length)
        if let mask { payload = payload.enumerated().map { $0.element ^ mask[$0.offset % 4] } }
        return Frame(
            fin: header[0] & 0x80 != 0, rsv1: header[0] & 0x40 != 0, opcode: header[0] & 0x0F, payload: payload)
    }

    /// Reads frames until a text frame holding `"event":"NAME"` (returned) or a close frame (an error).
    public func readEvent(_ name: String) throws -> String {
        while true {
            let frame = try readFrame()
            if frame.opcode == 0x8 {
                throw Failure(description: "closed with \(frame.closeCode ?? 0) waiting for \(name)")
            }
            if frame.opcode == 0x1, frame.text.contains("\"event\":\"\(name)\"") { return frame.text }
        }
    }

    /// Reads frames until a close frame; returns its code (`nil` when the connection ended without one).
    public func readCloseCode() -> Int? {
        while true {
            guard let frame = try? readFrame() else { return nil }
            if frame.opcode == 0x8 { return frame.closeCode ?? 1005 }
        }
    }
}

/// Runs blocking work on a thread of its own, off Swift's cooperative pool (and off Dispatch's global queues,
/// which on Linux run as many blocking items at once as there are cores).
extension RawSocket {
    /// Sends `request` on a new connection to `port` and returns the answer's status line and whether the server
    /// then ended the connection.
    public static func exchange(_ request: [UInt8], port: Int) async throws -> (status: String, closed: Bool) {
        try await offloaded {
            let socket = try RawSocket(port: port, timeout: 5)
            try socket.send(request)
            let (bytes, closed) = socket.readToEnd()
            let text = String(decoding: bytes, as: UTF8.self)
            return (String(text.prefix { $0 != "\r" && $0 != "\n" }), closed)
        }
    }
}

public func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}
