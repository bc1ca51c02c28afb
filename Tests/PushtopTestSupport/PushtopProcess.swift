import Foundation
import Synchronization
import Testing

/// The real `pushtop` binary run as a subprocess: its stdout lines, its stderr, its stdin, its exit code.
public final class PushtopProcess: Sendable {
    public static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["PUSHTOP_BIN"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "pushtop")
    }

    private let process: Process
    private let stdinPipe = Pipe()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private final class Output: Sendable {
        let out = Mutex<(lines: [String], partial: String)>(([], ""))
        let err = Mutex<String>("")
        /// Pipes that reached end of file (stdout, stderr): everything the process wrote has been read.
        let closedPipes = Atomic<Int>(0)
    }

    private let output = Output()

    public init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "PUSHER_APP_KEY")
        env.removeValue(forKey: "PUSHER_APP_SECRET")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let stdoutPipe = self.stdoutPipe
        let stderrPipe = self.stderrPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = stdinPipe
        let output = self.output
        // Each pipe is read until its end of file, which is counted (see ``exitCode(timeout:)``).
        func read(_ pipe: Pipe, _ take: @escaping @Sendable (Data) -> Void) {
            pipe.fileHandleForReading.readChunks(take) { output.closedPipes.add(1, ordering: .relaxed) }
        }
        read(stdoutPipe) { data in
            output.out.withLock { state in
                // One split per chunk: re-slicing the rest after every line was quadratic on long outputs.
                var parts = (state.partial + String(decoding: data, as: UTF8.self))
                    .split(separator: "\n", omittingEmptySubsequences: false)
                state.partial = String(parts.removeLast())
                state.lines.append(contentsOf: parts.map(String.init))
            }
        }
        read(stderrPipe) { data in output.err.withLock { $0 += String(decoding: data, as: UTF8.self) } }
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
        // A pipe's dispatch source must be cancelled before its file handle closes the descriptor: a source left on a
        // closed (and soon reused) descriptor crashed libdispatch's event loop in the test process.
        stdoutPipe.fileHandleForReading.stopReading()
        stderrPipe.fileHandleForReading.stopReading()
    }

    public var lines: [String] { output.out.withLock { $0.lines } }
    /// How many complete stdout lines there are so far.
    public var lineCount: Int { output.out.withLock { $0.lines.count } }
    /// The stdout lines from index `start` on (cheap for long runs that read incrementally).
    public func lines(from start: Int) -> [String] {
        output.out.withLock { Array($0.lines[min(start, $0.lines.count)...]) }
    }
    public var stderr: String { output.err.withLock { $0 } }

    /// The process has not exited (a crash or an early exit ends it).
    public var isRunning: Bool { process.isRunning }

    /// The stdout lines parsed as JSON objects.
    public var objects: [[String: Any]] {
        lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    public func send(_ line: String) {
        stdinPipe.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    public func closeStdin() {
        try? stdinPipe.fileHandleForWriting.close()
    }

    public func signal(_ sig: Int32) {
        kill(process.processIdentifier, sig)
    }

    /// Runs `pushtop ARGUMENTS` and expects a usage error: exit status 64 and `message` in what it wrote to stderr.
    @discardableResult
    public static func expectUsageError(
        _ arguments: [String], environment: [String: String] = [:], mentioning message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> PushtopProcess {
        let process = try PushtopProcess(arguments, environment: environment)
        #expect(try await process.exitCode() == 64, sourceLocation: sourceLocation)
        #expect(process.stderr.contains(message), "\(process.stderr)", sourceLocation: sourceLocation)
        return process
    }

    /// Waits for a stdout line whose JSON object satisfies `match`.
    @discardableResult
    public func waitForLine(_ what: String, timeout: Double = 15, _ match: @escaping @Sendable ([String: Any]) -> Bool)
        async throws
        -> [String: Any]
    {
        try await waitUntil(
            timeout: timeout, "\(what) (stdout so far: \(lines.suffix(5)), stderr: \(stderr.suffix(300)))"
        ) {
            self.objects.contains(where: match)
        }
        return objects.first(where: match)!
    }

    /// Waits for the process to exit and returns its status, once what it wrote to stdout and stderr is read.
    public func exitCode(timeout: Double = 15) async throws -> Int32 {
        try await waitUntil(timeout: timeout, "pushtop to exit") { !self.process.isRunning }
        // The pipes end with the process (unless a child of it still holds them): read to their end.
        try? await waitUntil(timeout: 10, "its output to be read") {
            self.output.closedPipes.load(ordering: .relaxed) == 2
        }
        return process.terminationStatus
    }

    /// The loopback port the process listens on, once it says so ("listening on 127.0.0.1:PORT", as `serve` and
    /// `proxy` print it); `what` names the process in the failure, with the end of its stderr.
    public func listeningPort(_ what: String, timeout: Double = 30) async throws -> Int {
        try await waitUntil(timeout: timeout, "\(what) to print where it listens (stderr: \(stderr.suffix(300)))") {
            self.lines.contains { $0.contains("listening on") }
        }
        let line = lines.first { $0.contains("listening on") } ?? ""
        guard let range = line.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
            let port = Int(line[range].split(separator: ":")[1])
        else { throw TestFailure("no port in '\(line)'") }
        return port
    }
}
