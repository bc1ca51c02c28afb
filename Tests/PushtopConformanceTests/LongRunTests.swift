import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@testable import PushtopConformance

/// `--long`: the cases that wait on the server's own clocks run only with it, with the server's real timings, and
/// are otherwise skipped naming the flag and the time they would take.
@Suite struct LongRunTests {
    static let clockCases = ["connection.server-pings-idle-client", "connection.unanswered-ping-closed"]

    @Test func withoutLongTheClockCasesAreSkippedWithTheFlagAndTheTime() async throws {
        try await withServer { server in
            let runner = ConformanceRunner(target: EngineTests.target(server), only: Self.clockCases)
            try await runner.preflight()
            #expect(
                runner.longRunNote
                    == "2 cases wait on the server's own clocks (activity_timeout 120 s) and are skipped: a --long run "
                    + "takes up to about 3.0 min against this server")
            let report = await runner.run()
            for record in report.cases {
                #expect(record.result == .skipped, "\(record.id): \(record.message)")
                #expect(record.message.contains("run with --long"), "\(record.message)")
            }
            let ping = try #require(report.cases.first { $0.id == "connection.server-pings-idle-client" })
            #expect(ping.message.contains("up to 2.5 min (activity_timeout 120 s)"), "\(ping.message)")
        }
    }

    @Test func withLongTheServerPingsAndClosesWithItsOwnTimings() async throws {
        try await withServer({
            $0.activityTimeout = 1
            $0.pongTimeout = 2
        }) { server in
            var target = EngineTests.target(server)
            target.long = true
            let runner = ConformanceRunner(target: target, only: Self.clockCases)
            try await runner.preflight()
            let note = runner.longRunNote ?? ""
            #expect(note.contains("this run takes up to about 61 s"), "\(note)")
            let report = await runner.run()
            let cases = Dictionary(uniqueKeysWithValues: report.cases.map { ($0.id, $0) })
            #expect(cases["connection.server-pings-idle-client"]?.result == .pass)
            #expect(cases["connection.server-pings-idle-client"]?.message.contains("pinged after") == true)
            let closed = try #require(cases["connection.unanswered-ping-closed"])
            #expect(closed.result == .pass, "\(closed.message)")
            #expect(closed.message == "close 4201 after an unanswered ping", "\(closed.message)")
        }
    }

    @Test func aServerThatNeverPingsFailsUnderLong() async throws {
        let server = try await RawPusherServer.start { _ in
            [.text(RawPusherServer.established(activityTimeout: 1)), .serve]
        }
        defer { server.stop() }
        var target = RefusalEvidenceTests.target(port: server.port)
        target.long = true
        let report = await ConformanceRunner(target: target, only: ["connection.server-pings-idle-client"]).run()
        let record = try #require(report.cases.first)
        #expect(record.result == .fail)
        #expect(record.expected == "a ping within 31 s of silence (activity_timeout 1 s)", "\(record.message)")
        #expect(record.got == "nothing")
    }
}
