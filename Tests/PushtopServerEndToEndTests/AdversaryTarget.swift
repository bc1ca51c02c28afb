import Foundation
import PushtopTestSupport
import Testing

/// Where the adversary suites send their strangers: the real `pushtop serve`, or a real `pushtop proxy` whose
/// upstream is not pushtop (a ``ScriptedPusherServer`` with its ``ScriptedHTTPAPI``, Hummingbird's HTTP and
/// WebSocket stack). The same apps on both: the shop (`1`, 10 API requests a second on `serve`) and the blog (`2`).
enum AdversaryTarget: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case serve
    case proxy

    var testDescription: String { rawValue }

    static let shop = (id: "1", key: "shop-key", secret: "shop-secret")
    static let blog = (id: "2", key: "blog-key", secret: "blog-secret")

    /// The apps file of `serve`.
    static let appsFile = """
        [[apps]]
        id = "1"
        key = "shop-key"
        secret = "shop-secret"
        api_requests_per_second = 10

        [[apps]]
        id = "2"
        key = "blog-key"
        secret = "blog-secret"
        """

    /// A running target: the port strangers connect to, and the upstream behind it (the proxy's).
    struct Running: Sendable {
        let port: Int
        let upstream: ScriptedPusherServer?
        let process: PushtopProcess

        /// The HTTP requests that reached the upstream (the proxy's: what it passed on), `[]` for `serve`.
        var passedOn: [ScriptedHTTPAPI.Received] { upstream?.httpRequests ?? [] }
    }

    /// Starts the target with `extra` flags (`--request-timeout`, `--idle-timeout`: both take them).
    func start(_ extra: [String] = []) async throws -> Running {
        switch self {
        case .serve:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "pushtop-adv-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("apps.toml").path
            try Self.appsFile.write(toFile: path, atomically: true, encoding: .utf8)
            let process = try PushtopProcess(
                ["serve", "--port", "0", "--apps-file", path, "--log-level", "error"] + extra)
            return Running(port: try await process.listeningPort("serve"), upstream: nil, process: process)
        case .proxy:
            let apps = [Self.shop, Self.blog].map { ScriptedHTTPAPI.App(id: $0.id, key: $0.key, secret: $0.secret) }
            let upstream = try await ScriptedPusherServer.start(transport: .init(apps: apps))
            do {
                let process = try PushtopProcess(
                    [
                        "proxy", "--listen", "127.0.0.1:0", "--upstream", "ws://127.0.0.1:\(upstream.port)",
                        "--app-id", Self.blog.id, "--key", Self.blog.key, "--secret", Self.blog.secret,
                        "--log-level", "error",
                    ] + extra)
                return Running(port: try await process.listeningPort("proxy"), upstream: upstream, process: process)
            } catch {
                upstream.stop()
                throw error
            }
        }
    }

    /// Runs `body` with the target started, then stops it; the process must still be running when `body` ends
    /// (no adversary crashes it).
    func with<T>(_ extra: [String] = [], _ body: (Running) async throws -> T) async throws -> T {
        let running = try await start(extra)
        return try await runAndCleanUp({
            let result = try await body(running)
            #expect(running.process.isRunning, "\(self) exited under the adversaries: \(running.process.stderr)")
            return result
        }) {
            running.process.signal(SIGTERM)
            _ = try? await running.process.exitCode()
            running.upstream?.stop()
        }
    }
}
