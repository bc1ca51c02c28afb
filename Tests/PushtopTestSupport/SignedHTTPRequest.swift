import Foundation
import PusherProtocol

/// An HTTP API request written by hand, as bytes on a socket: signed as Pusher's SDKs sign it, or broken on purpose.
/// For tests that pipeline requests or send what no HTTP client would.
public struct SignedHTTPRequest: Sendable {
    public var method: String
    public var path: String
    public var body: String?
    /// The query, in the order written (signing parameters included).
    public var query: [(String, String)]
    public var headers: [(String, String)] = []

    /// A request signed with `secret` for the app `key` (extra `parameters` are signed too).
    public init(
        _ method: String, _ path: String, body: String? = nil, key: String, secret: String,
        parameters: [String: String] = [:], timestamp: Int = Int(Date().timeIntervalSince1970)
    ) {
        self.method = method
        self.path = path
        self.body = body
        let signed = APIRequestSignature.sign(
            method: method, path: path, key: key, secret: secret, body: body.map { Array($0.utf8) },
            parameters: parameters, timestamp: timestamp)
        query = signed.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// A request with this query and no signature at all.
    public init(unsigned method: String, _ path: String, body: String? = nil, query: [(String, String)] = []) {
        self.method = method
        self.path = path
        self.body = body
        self.query = query
    }

    /// The request on the wire; `close` adds `Connection: close`.
    public func text(close: Bool = false) -> String {
        var target = path
        if !query.isEmpty { target += "?" + query.map { "\($0.0)=\($0.1)" }.joined(separator: "&") }
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if close { text += "Connection: close\r\n" }
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        return text + "\r\n" + (body ?? "")
    }
}

/// One HTTP response read off a raw socket.
public struct RawHTTPResponse: Sendable, Equatable, CustomStringConvertible {
    /// `HTTP/1.1 200 OK`.
    public var statusLine: String
    public var head: String
    public var body: String
    /// The status code.
    public var status: Int { Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0 }
    public var description: String { "\(statusLine) \(body.prefix(120))" }
}

extension RawSocket {
    /// Reads one response (its head, then `Content-Length` bytes of body).
    public func readHTTPResponse() throws -> RawHTTPResponse {
        let head = try readHTTPHead()
        let length =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        let body = String(decoding: try readBytes(length), as: UTF8.self)
        return RawHTTPResponse(
            statusLine: String(head.prefix { $0 != "\r" }), head: head, body: body)
    }

    /// Writes every request at once on a new connection (pipelined) and reads as many responses.
    public static func pipeline(_ requests: [String], port: Int, timeout: Double = 10) async throws
        -> [RawHTTPResponse]
    {
        try await offloaded {
            let socket = try RawSocket(port: port, timeout: timeout)
            defer { socket.close() }
            try socket.send(requests.joined())
            return try requests.map { _ in try socket.readHTTPResponse() }
        }
    }

    /// Sends each request on one keep-alive connection and reads its response before the next.
    public static func oneByOne(_ requests: [String], port: Int, timeout: Double = 10) async throws
        -> [RawHTTPResponse]
    {
        try await offloaded {
            let socket = try RawSocket(port: port, timeout: timeout)
            defer { socket.close() }
            return try requests.map { request in
                try socket.send(request)
                return try socket.readHTTPResponse()
            }
        }
    }
}
