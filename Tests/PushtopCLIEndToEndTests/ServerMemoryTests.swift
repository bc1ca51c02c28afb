import Foundation
import PushtopTestSupport
import Testing

/// `pushtop serve` in its own process: opening and cleanly closing WebSockets must not grow its memory.
/// `PUSHTOP_MEMORY_CYCLES` sets the number of connections (180000 for the full check of issue 9).
@Suite("Server memory")
struct ServerMemoryTests {
    static let cycles = ProcessInfo.processInfo.environment["PUSHTOP_MEMORY_CYCLES"].flatMap(Int.init) ?? 12_000

    /// Resident memory of a process, in KB.
    static func residentKB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
    }

    /// Opens a WebSocket, waits for `connection_established`, closes it with the handshake; `count` times.
    static func cycle(port: Int, count: Int) throws {
        for _ in 0..<count {
            let socket = try RawSocket.webSocket(port: port, path: "/app/pushtop-key?protocol=7", timeout: 10)
            _ = try socket.readEvent("pusher:connection_established")
            try socket.sendFrame(opcode: 0x8, payload: [0x03, 0xE8])
            _ = socket.readCloseCode()
            socket.close()
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status")))
    func rssStaysFlatAcrossOpenAndCloseCycles() async throws {
        let process = Process()
        process.executableURL = PushtopProcess.binary
        process.arguments = ["serve", "--port", "0", "--log-level", "error"]
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let output = stdout.fileHandleForReading
        let port = try await offloaded { () -> Int in
            var text = ""
            while !text.contains("\n") {
                let data = output.availableData
                guard !data.isEmpty else { break }
                text += String(decoding: data, as: UTF8.self)
            }
            // "pushtop serve: listening on ws://127.0.0.1:PORT/app/KEY (app id 1)"
            guard let range = text.range(of: "ws://127.0.0.1:"),
                let port = Int(text[range.upperBound...].prefix { $0.isNumber })
            else { throw RawSocket.Failure(description: "no port in \(text)") }
            return port
        }
        let pid = process.processIdentifier
        let warmUp = Self.cycles / 6
        try await offloaded { try Self.cycle(port: port, count: warmUp) }
        let afterWarmUp = try #require(Self.residentKB(pid))
        try await offloaded { try Self.cycle(port: port, count: Self.cycles - warmUp) }
        let atEnd = try #require(Self.residentKB(pid))
        // Before the fix every connection left about 0.9 KB behind: 10,000 more cycles grew RSS by ~9 MB.
        #expect(
            atEnd - afterWarmUp < 4_096,
            "RSS went from \(afterWarmUp) KB to \(atEnd) KB over \(Self.cycles - warmUp) connections")
    }
}
