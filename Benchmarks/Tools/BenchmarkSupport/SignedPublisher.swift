import Crypto
import Foundation

/// A minimal Pusher HTTP API publisher for load tools: one keep-alive HTTP/1.1 connection with blocking reads
/// and writes, requests signed as Pusher requires, one request in flight. Its own cost per request is a few
/// microseconds (an MD5, an HMAC, one `write` and one or two `read`s), so the figures are the server's.
///
/// - Important: Not thread-safe: use one publisher per thread.
public final class SignedPublisher {
    /// Where and as whom to publish.
    public struct Target: Sendable {
        public var host: String
        public var port: Int
        public var appID: String
        public var key: String
        public var secret: String

        /// `pushtop serve`'s defaults are app `1`, key `pushtop-key`, secret `pushtop-secret`.
        public init(
            host: String = "127.0.0.1", port: Int, appID: String = "1", key: String = "pushtop-key",
            secret: String = "pushtop-secret"
        ) {
            self.host = host
            self.port = port
            self.appID = appID
            self.key = key
            self.secret = secret
        }
    }

    private let target: Target
    private let socket: RawSocket
    private var response: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    /// Connects (blocking).
    public init(_ target: Target) throws(RawSocketError) {
        self.target = target
        socket = try RawSocket.connect(host: target.host, port: target.port)
    }

    deinit { socket.close() }

    /// `POST /apps/{id}/events` with one event on `channel`; returns once the response has arrived.
    /// - Returns: the monotonic time (ns) just before the request was written.
    @discardableResult
    public func trigger(channel: String, name: String, data: String) throws(PublishFailure) -> UInt64 {
        let body = #"{"name":"\#(name)","channel":"\#(channel)","data":"\#(Self.escape(data))"}"#
        return try post("events", body: Array(body.utf8))
    }

    /// `POST /apps/{id}/batch_events` with `events` (name and data each) on `channel`; returns once answered.
    @discardableResult
    public func triggerBatch(channel: String, events: [(name: String, data: String)]) throws(PublishFailure) -> UInt64 {
        var body = #"{"batch":["#
        for (index, event) in events.enumerated() {
            if index > 0 { body += "," }
            body += #"{"name":"\#(event.name)","channel":"\#(channel)","data":"\#(Self.escape(event.data))"}"#
        }
        body += "]}"
        return try post("batch_events", body: Array(body.utf8))
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    private func post(_ endpoint: String, body: [UInt8]) throws(PublishFailure) -> UInt64 {
        let path = "/apps/\(target.appID)/\(endpoint)"
        let md5 = Self.hex(Insecure.MD5.hash(data: body))
        let query =
            "auth_key=\(target.key)&auth_timestamp=\(Int(Date().timeIntervalSince1970))"
            + "&auth_version=1.0&body_md5=\(md5)"
        let signature = Self.hex(
            HMAC<SHA256>.authenticationCode(
                for: Array("POST\n\(path)\n\(query)".utf8), using: SymmetricKey(data: Array(target.secret.utf8))))
        var request = Array(
            ("POST \(path)?\(query)&auth_signature=\(signature) HTTP/1.1\r\nHost: \(target.host):\(target.port)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n").utf8)
        request.append(contentsOf: body)
        let sentAt = monotonicNanoseconds()
        do {
            try socket.writeAll(request)
        } catch {
            throw .io(error)
        }
        try readResponse()
        return sentAt
    }

    /// Reads one response (headers and a `Content-Length` body); throws unless the status is 200.
    private func readResponse() throws(PublishFailure) {
        response.removeAll(keepingCapacity: true)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            if headerEnd == nil, let end = Self.find(Array("\r\n\r\n".utf8), in: response) {
                headerEnd = end + 4
                let head = String(decoding: response[..<end], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    contentLength = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let headerEnd, response.count >= headerEnd + contentLength {
                let status = response.count > 12 ? String(decoding: response[9..<12], as: UTF8.self) : "?"
                guard status == "200" else {
                    throw .status(status, String(decoding: response[headerEnd...], as: UTF8.self))
                }
                return
            }
            let n: Int
            do {
                n = try socket.read(into: &scratch)
            } catch {
                throw .io(error)
            }
            guard n > 0 else { throw .io(.closed) }
            response.append(contentsOf: scratch[0..<n])
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<start + needle.count]) == needle { return start }
        }
        return nil
    }

    private static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Why a publish failed.
public enum PublishFailure: Error, CustomStringConvertible {
    /// The server answered with another status than 200.
    case status(String, String)
    /// The connection failed.
    case io(RawSocketError)

    public var description: String {
        switch self {
        case .status(let status, let body): return "the server answered \(status): \(body)"
        case .io(let error): return "\(error)"
        }
    }
}
