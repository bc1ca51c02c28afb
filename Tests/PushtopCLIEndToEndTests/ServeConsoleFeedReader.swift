import Foundation
import PusherProtocol
import PushtopTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A reader of `pushtop serve`'s debug feed over a plain loopback socket, as any SSE client reads it: it sends the
/// signed `GET /apps/{id}/console`, then reads on a thread of its own (de-chunking the body) and keeps the hello,
/// every row and the keep-alives. ``pause()`` stops reading (the kernel buffer fills: a stuck listener).
final class ServeConsoleFeedReader: Sendable {
    struct State {
        var head: String?
        var status: Int?
        var hello: JSONValue?
        var rows: [ConsoleRow] = []
        /// Every byte of the body, de-chunked: to look for what must never appear (the secret).
        var body = ""
        var keepAlives = 0
        var ended = false
        var paused = false
        var stopped = false
    }

    private let state = Mutex(State())
    private let fd: Int32

    var status: Int? { state.withLock { $0.status } }
    var hello: JSONValue? { state.withLock { $0.hello } }
    var rows: [ConsoleRow] { state.withLock { $0.rows } }
    var body: String { state.withLock { $0.body } }
    var ended: Bool { state.withLock { $0.ended } }
    var head: String { state.withLock { $0.head ?? "" } }

    /// The signed request target of the feed of `appID` (`timestamp` defaults to now).
    static func target(
        appID: String, key: String, secret: String, types: String? = nil, timestamp: Int? = nil
    ) -> String {
        let path = "/apps/\(appID)/console"
        var parameters: [String: String] = [:]
        if let types { parameters["types"] = types }
        let signed = APIRequestSignature.sign(
            method: "GET", path: path, key: key, secret: secret, body: nil, parameters: parameters,
            timestamp: timestamp ?? Int(Date().timeIntervalSince1970))
        let query = signed.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        return "\(path)?\(query)"
    }

    /// Connects to `port`, asks for `target`, and reads on a thread until ``stop()`` or the end of the response.
    /// A `receiveBuffer` keeps the kernel's buffer small, so that a paused reader is stuck soon.
    init(port: Int, target: String, receiveBuffer: Int? = nil) throws {
        #if canImport(Glibc)
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        if var size = receiveBuffer.map(Int32.init) {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var time = timeval(tv_sec: 0, tv_usec: 100_000)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw TestFailure("connect to \(port) failed")
        }
        let request = Array(
            "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        let thread = Thread { [self] in self.readLoop() }
        thread.start()
    }

    /// Stops reading (the data piles up in the kernel, then in the server's queue for this listener).
    func pause() { state.withLock { $0.paused = true } }
    func resume() { state.withLock { $0.paused = false } }

    /// Stops the reader and closes the socket.
    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Waits until a row matches.
    @discardableResult
    func waitForRow(
        timeout: Double = 15, _ what: String, _ matches: @escaping @Sendable (ConsoleRow) -> Bool
    ) async throws -> ConsoleRow {
        try await waitUntil(timeout: timeout, "\(what) (types so far: \(Set(rows.map(\.type.rawValue)).sorted()))") {
            rows.contains(where: matches)
        }
        return rows.first(where: matches)!
    }

    private func readLoop() {
        var raw: [UInt8] = []
        var headDone = false
        var chunked = false
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        defer {
            close(fd)
            state.withLock { $0.ended = true }
        }
        while true {
            let (paused, stopped) = state.withLock { ($0.paused, $0.stopped) }
            if stopped { return }
            if paused {
                usleep(10_000)
                continue
            }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return }
            if n < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                return
            }
            raw.append(contentsOf: chunk[..<n])
            if !headDone {
                guard let end = raw.firstRange(of: Array("\r\n\r\n".utf8)) else { continue }
                let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self)
                raw.removeFirst(end.upperBound)
                headDone = true
                chunked = head.lowercased().contains("transfer-encoding: chunked")
                let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) }
                state.withLock {
                    $0.head = head
                    $0.status = status
                }
            }
            if chunked {
                while let lineEnd = raw.firstRange(of: Array("\r\n".utf8)) {
                    let sizeText = String(decoding: raw[..<lineEnd.lowerBound], as: UTF8.self)
                    guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { return }
                    guard raw.count >= lineEnd.upperBound + size + 2 else { break }
                    text.append(contentsOf: raw[lineEnd.upperBound..<(lineEnd.upperBound + size)])
                    raw.removeFirst(lineEnd.upperBound + size + 2)
                    if size == 0 {
                        consume(&text)
                        return
                    }
                }
            } else {
                text.append(contentsOf: raw)
                raw.removeAll()
            }
            consume(&text)
        }
    }

    /// Takes the complete events (blocks ending with a blank line) out of `text`.
    private func consume(_ text: inout [UInt8]) {
        let separator = Array("\n\n".utf8)
        var hello: JSONValue?
        var rows: [ConsoleRow] = []
        var keepAlives = 0
        var bodyText = ""
        while let end = text.firstRange(of: separator) {
            let block = String(decoding: text[..<end.lowerBound], as: UTF8.self)
            text.removeFirst(end.upperBound)
            bodyText += block + "\n\n"
            if block.hasPrefix("event: hello\ndata: ") {
                hello = JSONValue.parseIfJSON(String(block.dropFirst("event: hello\ndata: ".count)))
            } else if block.hasPrefix("data: ") {
                if let row = ConsoleRow(jsonLine: String(block.dropFirst("data: ".count))) { rows.append(row) }
            } else if block.hasPrefix(":") {
                keepAlives += 1
            }
        }
        if !text.isEmpty, bodyText.isEmpty, state.withLock({ $0.status }) != 200 {
            bodyText = String(decoding: text, as: UTF8.self)
            text.removeAll()
        }
        state.withLock {
            if let hello { $0.hello = hello }
            $0.rows.append(contentsOf: rows)
            $0.keepAlives += keepAlives
            $0.body += bodyText
        }
    }
}
