import Foundation
import PushtopTestSupport

/// A real `pushtop serve` process on a free loopback port, for tests that need a node of their own (several of
/// them with the same app make an unjoined, misconfigured cluster).
final class ServeNode: Sendable {
    let process: PushtopProcess
    let port: Int
    static let key = "node-key", secret = "node-secret", appID = "42"

    /// `HOST:PORT`, as `--node` takes it.
    var address: String { "127.0.0.1:\(port)" }

    private init(process: PushtopProcess, port: Int) {
        self.process = process
        self.port = port
    }

    static func start(extra: [String] = []) async throws -> ServeNode {
        let process = try PushtopProcess(["serve", "--port", "0", "--key", key, "--secret", secret, "--app-id", appID,
            "--log-level", "error"] + extra)
        try await waitUntil(timeout: 30, "serve to print where it listens (stderr: \(process.stderr.suffix(300)))") {
            process.lines.first.map { $0.contains("listening on") } ?? false
        }
        let line = process.lines[0]
        guard let range = line.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
            let port = Int(line[range].split(separator: ":")[1])
        else { throw TestFailure("no port in '\(line)'") }
        return ServeNode(process: process, port: port)
    }

    /// SIGTERM, and waits for the exit.
    func stop() async {
        process.signal(SIGTERM)
        _ = try? await process.exitCode()
    }

    /// SIGKILL: the node dies without a goodbye.
    func kill() async {
        process.signal(SIGKILL)
        _ = try? await process.exitCode()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
