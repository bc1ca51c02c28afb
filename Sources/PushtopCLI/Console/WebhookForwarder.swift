import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// Passes received webhook requests on unchanged (`--forward URL`): the method, the path and query appended to the
/// target's path, every header byte for byte but the hop-by-hop ones (and `Host` and `Content-Length`, which
/// describe the new hop), the body byte for byte. Redirects are not followed: the sender sees the target's answer.
struct WebhookForwarder: Sendable {
    /// One received request, as it arrived.
    struct Request: Sendable {
        var method: String
        /// The path and query (`/pusher/webhooks?x=1`).
        var uri: String
        /// The headers in their order and spelling.
        var headers: [(String, String)]
        var body: [UInt8]
    }

    /// A target's answer.
    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
    }

    /// What one forward gave.
    struct Outcome: Sendable {
        var url: String
        var result: Result<Answer, WebhookForwardError>
    }

    /// The headers never passed on: they describe one hop, not the request.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer",
        "trailers", "transfer-encoding", "upgrade", "host", "content-length",
    ]

    /// The largest answer body kept (the rest is cut).
    static let answerLimit = 1 << 20

    let client: HTTPClient
    let targets: [String]
    let timeout: TimeAmount

    /// The URL a request goes to: the target's path (without its trailing `/`) followed by the request's path and
    /// query.
    static func url(target: String, uri: String) -> String {
        var base = target
        while base.hasSuffix("/") { base.removeLast() }
        // A target with a query keeps it after the appended path only when the request has none.
        if let q = base.firstIndex(of: "?") {
            let query = base[q...]
            base = String(base[..<q])
            while base.hasSuffix("/") { base.removeLast() }
            return base + (uri.hasPrefix("/") ? uri : "/" + uri) + (uri.contains("?") ? "" : String(query))
        }
        return base + (uri.hasPrefix("/") ? uri : "/" + uri)
    }

    /// The headers passed on: all but the hop-by-hop ones and those the `Connection` header names.
    static func passedHeaders(_ headers: [(String, String)]) -> [(String, String)] {
        let named = Set(
            headers.filter { $0.0.lowercased() == "connection" }
                .flatMap { $0.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } })
        return headers.filter { !hopByHop.contains($0.0.lowercased()) && !named.contains($0.0.lowercased()) }
    }

    /// Sends the request to every target at once; the outcomes in the targets' order.
    func forward(_ request: Request) async -> [Outcome] {
        await withTaskGroup(of: (Int, Outcome).self) { group in
            for (index, target) in targets.enumerated() {
                group.addTask { (index, await send(request, to: target)) }
            }
            var outcomes: [(Int, Outcome)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    private func send(_ request: Request, to target: String) async -> Outcome {
        let url = Self.url(target: target, uri: request.uri)
        var outgoing = HTTPClientRequest(url: url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        outgoing.headers = HTTPHeaders(Self.passedHeaders(request.headers))
        if !request.body.isEmpty || request.method != "GET" {
            outgoing.body = .bytes(ByteBuffer(bytes: request.body))
        }
        do {
            let response = try await client.execute(outgoing, timeout: timeout)
            var body = try await response.body.collect(upTo: Self.answerLimit)
            let bytes = body.readBytes(length: body.readableBytes) ?? []
            let headers = response.headers.map { ($0.name, $0.value) }
            return Outcome(
                url: url, result: .success(Answer(status: Int(response.status.code), headers: headers, body: bytes)))
        } catch {
            return Outcome(url: url, result: .failure(WebhookForwardError(url: url, reason: "\(error)")))
        }
    }
}

/// A `--forward` target that could not be reached or did not answer in time.
struct WebhookForwardError: Error, Sendable, Hashable, CustomStringConvertible {
    var url: String
    var reason: String
    var description: String { "forwarding to \(url) failed: \(reason)" }
}
