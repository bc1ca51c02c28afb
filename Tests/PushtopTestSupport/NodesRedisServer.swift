import Foundation
import PusherChannels

/// A real `redis-server` on a free loopback port without persistence, for tests that join `pushtop serve`
/// nodes into a cluster (`--redis`). Stopped when released.
public final class NodesRedisServer: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let port: Int
    // Set once in `launch` before the server is handed out; read in `stop`.
    private var process: Process?

    private init(port: Int) { self.port = port }

    /// `redis://127.0.0.1:PORT`, as `serve --redis` takes it.
    public var url: String { "redis://127.0.0.1:\(port)" }

    /// Whether `redis-server` is installed (scripts/install-deps).
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-server") }

    /// Starts one on a free port; returns once it answers `PING`.
    public static func start() async throws -> NodesRedisServer {
        var lastError: (any Error)?
        for _ in 0..<5 {
            let server = NodesRedisServer(port: Int.random(in: 20_000...60_000))
            do {
                try await server.launch()
                return server
            } catch {
                lastError = error
            }
        }
        throw lastError ?? Failure(description: "redis-server did not start")
    }

    public func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    private func launch() async throws {
        let redis = Process()
        redis.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        redis.arguments = ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning"]
        redis.standardOutput = FileHandle.nullDevice
        redis.standardError = FileHandle.nullDevice
        try redis.run()
        process = redis
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard redis.isRunning else { throw Failure(description: "redis-server exited (port \(port) taken?)") }
            if Self.ping(port: port) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        stop()
        throw Failure(description: "redis-server did not answer on port \(port)")
    }

    private static func ping(port: Int) -> Bool {
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        cli.arguments = ["-p", "\(port)", "ping"]
        let pipe = Pipe()
        cli.standardOutput = pipe
        cli.standardError = FileHandle.nullDevice
        guard (try? cli.run()) != nil else { return false }
        cli.waitUntilExit()
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).hasPrefix("PONG")
    }
}

/// Members joining and leaving a presence channel through the given ports in turn, each staying a fraction of a
/// second (`users` ids reused, so the same user comes and goes): churn for the node tests. Cancel the task to stop.
public func presenceChurn(ports: [Int], key: String, secret: String, channel: String, users: Int = 5) -> Task<Void, Never> {
    Task {
        var n = 0
        while !Task.isCancelled {
            n += 1
            let options = PusherClientOptions(key: key, host: "127.0.0.1", port: ports[n % ports.count],
                connection: ConnectionConfiguration(useTLS: false),
                authorizer: SecretAuthorizer(key: key, secret: secret, userID: "churn-\(n % users)"))
            let client = PusherClient(options: options)
            try? await client.subscribe(channel)
            await client.connect()
            try? await Task.sleep(for: .milliseconds(Int.random(in: 150...700)))
            await client.shutdown(closeTimeout: .milliseconds(200))
        }
    }
}
