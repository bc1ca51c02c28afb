import Foundation
import Testing

/// The requests an unfriendly network or a careless client sends a pushtop listener, written once: the HTTP
/// adversary suite sends the same ones to `pushtop serve` and to `pushtop proxy` (in front of a server that is not
/// pushtop), so both answer the same list.
public enum HTTPAdversary {
    /// Request smuggling or broken chunked framing: the headers that frame the body, then what follows them.
    public struct Framing: Sendable, CustomTestStringConvertible {
        public var name: String
        /// From the framing header lines to the end of the head, and the (broken) body that follows.
        public var framing: String
        public var testDescription: String { name }
    }

    /// Each framing is answered 400 and the connection closed; what it hides is never served.
    public static let framings: [Framing] = [
        .init(
            name: "content-length-and-chunked",
            framing: "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        .init(
            name: "chunked-and-content-length",
            framing: "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n"),
        .init(name: "two-content-lengths", framing: "Content-Length: 2\r\nContent-Length: 60\r\n\r\n{}"),
        .init(name: "invalid-chunk-size", framing: "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
        .init(
            name: "chunk-size-2^64", framing: "Transfer-Encoding: chunked\r\n\r\n10000000000000000\r\n{}\r\n0\r\n\r\n"),
        .init(
            name: "chunk-size-overflowing",
            framing: "Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n{}\r\n0\r\n\r\n"),
        .init(name: "unknown-transfer-coding", framing: "Transfer-Encoding: gzip, chunked, x\r\n\r\n0\r\n\r\n"),
    ]

    /// `POST path` framed by `framing`, with `hidden` (a whole request) where the body should be.
    public static func smuggling(_ framing: Framing, path: String, hiding hidden: String) -> String {
        "POST \(path) HTTP/1.1\r\nHost: x\r\n" + framing.framing + hidden
    }

    /// A head or target too large to read: refused with one of `allowed` and closed.
    public struct Oversized: Sendable {
        public var name: String
        public var request: String
        public var allowed: [Int]
    }

    /// A 100 KB header field and a 120 KB request target, both for `GET path`.
    public static func oversized(path: String) -> [Oversized] {
        [
            .init(
                name: "header",
                request: "GET \(path) HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\n\r\n",
                allowed: [431]),
            .init(
                name: "target",
                request: "GET \(path)?\(String(repeating: "a=1&", count: 30_000)) HTTP/1.1\r\nHost: x\r\n\r\n",
                allowed: [400, 414, 431]),
        ]
    }

    /// Half a head that never ends (slowloris): closed at the request timeout.
    public static func slowHead(path: String) -> String {
        "POST \(path) HTTP/1.1\r\nHost: x\r\nX-Slow: "
    }

    /// What a listener answered to bytes written at once on a new connection, read until it closed (or the read
    /// timed out).
    public struct Answers: Sendable {
        /// The status codes, in order.
        public var statuses: [Int]
        public var text: String
        /// The listener closed the connection (it did not stay open until the read timed out).
        public var closed: Bool
    }

    /// Sends `request` on a new connection to `port` and reads every answer until the connection ends.
    public static func send(_ request: String, port: Int, timeout: Double = 5) async throws -> Answers {
        let (bytes, closed) = try await offloaded {
            let raw = try RawSocket(port: port, timeout: timeout)
            defer { raw.close() }
            try raw.send(request)
            return raw.readToEnd()
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let statuses = text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
        return Answers(statuses: statuses, text: text, closed: closed)
    }
}
