import Foundation
import Synchronization

/// One run of a binary built next to the tests (`pushtop`, an example): its exit status and everything it wrote.
public struct CommandRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// The directory of the `pushtop` under test: `PUSHTOP_BIN`'s (scripts/test sets it to the release binary), else
    /// the test bundle's.
    public static var binDirectory: URL {
        if let path = ProcessInfo.processInfo.environment["PUSHTOP_BIN"] {
            return URL(fileURLWithPath: path).deletingLastPathComponent()
        }
        return productsDirectory
    }

    /// The directory of the products built with the tests (the examples): the test bundle's.
    public static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// Runs `binary` (a product name, or an absolute path) to completion; kills it and throws after `timeout`.
    public static func run(
        _ binary: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
        timeout: Double = 60
    ) async throws -> CommandRun {
        let process = Process()
        process.executableURL =
            binary.hasPrefix("/")
            ? URL(fileURLWithPath: binary)
            : (binary == "pushtop" ? binDirectory : productsDirectory).appendingPathComponent(binary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for name in env.keys where name.hasPrefix("PUSHER_") || (name.hasPrefix("PUSHTOP_") && name != "PUSHTOP_BIN") {
            env.removeValue(forKey: name)
        }
        for (name, value) in environment { env[name] = value }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let collected = Mutex<(out: Data, err: Data)>((Data(), Data()))
        out.fileHandleForReading.readChunks { data in collected.withLock { $0.out.append(data) } }
        err.fileHandleForReading.readChunks { data in collected.withLock { $0.err.append(data) } }
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        do {
            try await waitUntil(timeout: timeout, "\(binary) \(arguments.joined(separator: " ")) to exit") {
                !process.isRunning
            }
        } catch {
            process.terminate()
            throw error
        }
        // Drain what is left in the pipes after the exit.
        out.fileHandleForReading.stopReading()
        err.fileHandleForReading.stopReading()
        let restOut = out.fileHandleForReading.readDataToEndOfFile()
        let restErr = err.fileHandleForReading.readDataToEndOfFile()
        let (stdout, stderr) = collected.withLock { ($0.out + restOut, $0.err + restErr) }
        return CommandRun(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
