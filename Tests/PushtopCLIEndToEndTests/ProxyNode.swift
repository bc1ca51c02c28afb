import Foundation
import PusherProtocol
import PushtopTestSupport

/// A real `pushtop proxy` process on a free loopback port in front of a ``ServeNode``.
final class ProxyNode: Sendable {
    let process: PushtopProcess
    let port: Int
    let upstream: ServeNode

    private init(process: PushtopProcess, port: Int, upstream: ServeNode) {
        self.process = process
        self.port = port
        self.upstream = upstream
    }

    /// Starts `pushtop proxy --listen 127.0.0.1:0 --upstream ws://…` with the node's app and waits until it listens.
    static func start(inFrontOf of: ServeNode, extra: [String] = []) async throws -> ProxyNode {
        let (process, port) = try await launch(
            upstreamPort: of.port, key: of.key, secret: of.secret, appID: of.appID, extra: extra)
        return ProxyNode(process: process, port: port, upstream: of)
    }

    /// Starts `pushtop proxy` in front of whatever listens on `upstreamPort` (pushtop or not); returns the process
    /// and the port it listens on, once it says so.
    static func launch(
        upstreamPort: Int, key: String, secret: String, appID: String, extra: [String] = []
    ) async throws -> (PushtopProcess, Int) {
        let process = try PushtopProcess(
            [
                "proxy", "--listen", "127.0.0.1:0", "--upstream", "ws://127.0.0.1:\(upstreamPort)", "--key", key,
                "--secret", secret, "--app-id", appID, "--log-level", "notice",
            ] + extra)
        let port = try await process.listeningPort("proxy")
        return (process, port)
    }

    /// The URL a client of the app connects to through the proxy.
    func socketURL(client: String = "js", version: String = "8.6.0", key: String? = nil) -> String {
        "ws://127.0.0.1:\(port)/app/\(key ?? upstream.key)?protocol=7&client=\(client)&version=\(version)"
    }

    /// The proxy's console feed, signed with the app's secret.
    func feed(types: String? = nil) async throws -> ServeConsoleFeedReader {
        let reader = try ServeConsoleFeedReader(
            port: port,
            target: ServeConsoleFeedReader.target(
                appID: upstream.appID, key: upstream.key, secret: upstream.secret, types: types))
        try await waitUntil("the proxy feed's hello") { reader.hello != nil || reader.ended }
        guard reader.status == 200 else { throw TestFailure("feed: \(reader.head)") }
        return reader
    }

    /// A signed request to `port` (the proxy's own endpoints, or the HTTP API passed through); status and body.
    func signed(_ method: String, _ path: String, body: String? = nil, secret: String? = nil) async throws
        -> (status: Int, body: String)
    {
        let bytes = body.map { Array($0.utf8) }
        let signed = APIRequestSignature.sign(
            method: method, path: path, key: upstream.key, secret: secret ?? upstream.secret, body: bytes,
            timestamp: Int(Date().timeIntervalSince1970))
        let query = signed.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        return try await raw(method, "\(path)?\(query)", body: body)
    }

    /// An unsigned request.
    func raw(_ method: String, _ target: String, body: String? = nil) async throws -> (status: Int, body: String) {
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + (body ?? "")
        let port = self.port
        let text = try await Task.detached {
            let socket = try RawSocket(port: port, timeout: 5)
            try socket.send(Array(request.utf8))
            return String(decoding: socket.readToEnd().0, as: UTF8.self)
        }.value
        let statusLine = text.prefix { $0 != "\r" && $0 != "\n" }
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0, body)
    }

    func stop() async {
        process.signal(SIGTERM)
        _ = try? await process.exitCode()
    }
}

extension ProxyNode {
    /// Runs `body` with a `serve` node and a proxy in front of it, then stops both (the proxy first).
    static func withProxy(
        extra: [String] = [], _ body: (ServeNode, ProxyNode) async throws -> Void
    ) async throws {
        let node = try await ServeNode.start()
        let proxy: ProxyNode
        do {
            proxy = try await ProxyNode.start(inFrontOf: node, extra: extra)
        } catch {
            await node.stop()
            throw error
        }
        do {
            try await body(node, proxy)
        } catch {
            await proxy.stop()
            await node.stop()
            throw error
        }
        await proxy.stop()
        await node.stop()
    }
}
