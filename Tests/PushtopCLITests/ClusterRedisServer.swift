import Foundation
import Synchronization

/// A real `redis-server` for the cluster tests on a free loopback port, without persistence; it can be killed
/// and started again (empty) on the same port.
///
/// (The Redis helper's `RedisServerProcess` in PushtopTestSupport does the same; this small one keeps the
/// cluster tests independent of its arrival.)
final class ClusterRedisServer: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: Int
    private let process = Mutex<Process?>(nil)

    private init(port: Int) { self.port = port }

    var url: String { "redis://127.0.0.1:\(port)" }

    /// Starts one on a free port; returns once it answers `PING`.
    static func start() async throws -> ClusterRedisServer {
        var lastError: (any Error)?
        for _ in 0..<5 {
            let server = ClusterRedisServer(port: Int.random(in: 20_000...60_000))
            do {
                try await server.launch()
                return server
            } catch {
                lastError = error
            }
        }
        throw lastError ?? Failure(description: "redis-server did not start")
    }

    /// Starts it again, empty, on the same port.
    func restart() async throws { try await launch() }

    /// SIGKILL, and waits until it is gone.
    func kill() {
        guard let running = process.withLock({ process -> Process? in
            defer { process = nil }
            return process
        }) else { return }
        if running.isRunning { Foundation.kill(running.processIdentifier, SIGKILL) }
        running.waitUntilExit()
    }

    deinit { kill() }

    private func launch() async throws {
        let redis = Process()
        redis.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        redis.arguments = ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                           "--loglevel", "warning"]
        redis.standardOutput = FileHandle.nullDevice
        redis.standardError = FileHandle.nullDevice
        try redis.run()
        process.withLock { $0 = redis }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard redis.isRunning else { throw Failure(description: "redis-server exited (port \(port) taken?)") }
            if Self.ping(port: port) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        kill()
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
