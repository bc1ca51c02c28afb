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
    /// Used by the reading thread alone once the request is sent.
    private let socket: RawSocket

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
        socket = try RawSocket(port: port, timeout: 0.1, receiveBuffer: receiveBuffer)
        try socket.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
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
        defer {
            socket.close()
            state.withLock { $0.ended = true }
        }
        while true {
            let (paused, stopped) = state.withLock { ($0.paused, $0.stopped) }
            if stopped { return }
            if paused {
                usleep(10_000)
                continue
            }
            guard let bytes = socket.readAvailable() else { return }
            if bytes.isEmpty { continue }
            raw.append(contentsOf: bytes)
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
