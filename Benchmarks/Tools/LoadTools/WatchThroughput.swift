import BenchmarkSupport
import Foundation
import Synchronization

/// `pushtop watch` as a process, fed by the bulk frame server, its stdout read and discarded: events/s.
enum WatchThroughput {
    final class Progress: Sendable {
        let lines = Atomic<Int>(0)
        let thirdLineAt = Mutex<ContinuousClock.Instant?>(nil)
        let lastLineAt = Mutex<ContinuousClock.Instant?>(nil)
        let dropReports = Atomic<Int>(0)
    }

    static func run(binary: String, count: Int) async throws -> String {
        let server = try await BulkFrameServer.start(frame: SampleFrames.event, count: count)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "watch", "--key", "bench", "--host", "127.0.0.1", "--port", String(server.port), "--no-tls", "ticker",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let progress = Progress()
        let handle = pipe.fileHandleForReading
        Thread {
            var lines = 0
            var previous: UInt8 = 0
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                for byte in data {
                    if byte == 0x0A {
                        lines += 1
                        if lines == 3 { progress.thirdLineAt.withLock { $0 = .now } }
                    }
                    // `"code":null,"message":"dropped` marks watch's drop report.
                    if previous == UInt8(ascii: "\"") && byte == UInt8(ascii: "d") {
                        progress.dropReports.add(1, ordering: .relaxed)
                    }
                    previous = byte
                }
                progress.lines.store(lines, ordering: .relaxed)
                progress.lastLineAt.withLock { $0 = .now }
            }
        }.start()
        // Two state lines come first, then one line per event; stop when all came or nothing came for 2 s.
        var lastSeen = 0
        var idleSince = ContinuousClock.now
        while progress.lines.load(ordering: .relaxed) < count + 2 {
            try await Task.sleep(for: .milliseconds(50))
            let now = progress.lines.load(ordering: .relaxed)
            if now != lastSeen {
                lastSeen = now
                idleSince = .now
            } else if ContinuousClock.now - idleSince > .seconds(2) {
                break
            }
        }
        process.terminate()
        process.waitUntilExit()
        await server.stop()
        let first = progress.thirdLineAt.withLock { $0 } ?? .now
        let last = progress.lastLineAt.withLock { $0 } ?? .now
        let d = last - first
        let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        let events = max(0, progress.lines.load(ordering: .relaxed) - 2)
        let note = events < count ? ", \(count - events) of \(count) not printed (watch reported drops)" : ""
        return "pushtop watch -> pipe                \(Loopback.rate(events, seconds))\(note)"
    }
}
