import Foundation
import PusherProtocol
import PushtopTestSupport
import Testing

@testable import PushtopConformance

/// Servers that refuse their own way (a raw WebSocket server, frame by frame): conform keeps every frame they sent
/// and judges the refusal's code and how the connection ended apart.
@Suite struct RefusalEvidenceTests {
    static func target(port: Int) -> ConformanceTarget {
        ConformanceTarget(
            nodes: [.single(host: "127.0.0.1", port: port, useTLS: false, appID: "1", key: "key", secret: "secret")],
            appID: "1", key: "key", secret: "secret", patience: 2)
    }

    static let refusalCases = [
        "connection.unknown-key-4001", "connection.bad-version-4006", "connection.unsupported-protocol-4007",
        "connection.no-protocol-4008",
    ]

    /// The code Pusher documents for a connection URL, `nil` for a good one.
    static func code(for target: String) -> Int? {
        if !target.hasPrefix("/app/key?") { return target.hasPrefix("/app/") ? 4001 : 4005 }
        if target.contains("protocol=abc") { return 4006 }
        if target.contains("protocol=99") { return 4007 }
        return target.contains("protocol=") ? nil : 4008
    }

    /// Refuses with `pusher:error` and the code `code(for:)` gives (shifted by `wrongBy`), then `ending` (a close
    /// frame with the same code when `ending` is `.close(0)`).
    static func refusingServer(_ ending: RawPusherServer.Step, wrongBy: Int = 0) async throws -> RawPusherServer {
        try await RawPusherServer.start { target in
            guard let code = code(for: target) else { return [.text(RawPusherServer.established()), .serve] }
            return [.text(RawPusherServer.refusal(code + wrongBy)), ending == .close(0) ? .close(code) : ending]
        }
    }

    static func run(_ server: RawPusherServer, _ only: [String]) async -> [String: CaseRecord] {
        let report = await ConformanceRunner(target: target(port: server.port), only: only).run()
        return Dictionary(uniqueKeysWithValues: report.cases.map { ($0.id, $0) })
    }

    @Test func aRefusalThenADroppedConnectionIsTheRightCodeAndAMissingCloseFrame() async throws {
        let server = try await Self.refusingServer(.drop)
        defer { server.stop() }
        // Repeated: the refusal and the end arrive together, often in the read that completes the upgrade.
        for _ in 0..<10 {
            let cases = await Self.run(server, Self.refusalCases + ["connection.refusals-close-with-their-code"])
            for id in Self.refusalCases {
                let record = try #require(cases[id])
                #expect(record.result == .pass, "\(id): \(record.message) \(record.evidence ?? [])")
                #expect(record.message.contains("dropped without a close frame"), "\(id): \(record.message)")
            }
            let ending = try #require(cases["connection.refusals-close-with-their-code"])
            #expect(ending.result == .fail)
            #expect(ending.message.contains("an unknown key: pusher:error 4001"), "\(ending.message)")
            #expect(ending.message.contains("the TCP connection dropped without a close frame (no close frame)"))
            #expect(!ending.message.contains("nothing"), "\(ending.message)")
            #expect(ending.evidence?.contains { $0.contains(#""code":4006"#) } == true, "\(ending.evidence ?? [])")
        }
    }

    @Test func aRefusalClosedWithItsCodePassesBoth() async throws {
        let server = try await Self.refusingServer(.close(0))
        defer { server.stop() }
        let cases = await Self.run(server, Self.refusalCases + ["connection.refusals-close-with-their-code"])
        for (id, record) in cases {
            #expect(record.result == .pass, "\(id): \(record.message)")
        }
        #expect(cases["connection.unknown-key-4001"]?.message.contains("then close 4001") == true)
    }

    @Test func theWrongCodeIsNamedWithTheOneThatCame() async throws {
        let server = try await Self.refusingServer(.close(0), wrongBy: 5)
        defer { server.stop() }
        let cases = await Self.run(server, ["connection.unknown-key-4001", "connection.no-protocol-4008"])
        let record = try #require(cases["connection.unknown-key-4001"])
        #expect(record.result == .fail)
        #expect(record.message.contains("pusher:error 4006 instead of 4001"), "\(record.message)")
        #expect(cases["connection.no-protocol-4008"]?.message.contains("pusher:error 4013") == true)
    }

    @Test func aServerThatAcceptsAnyPathAndSaysNothingIsNotARefusal() async throws {
        let server = try await RawPusherServer.start { _ in [.serve] }
        defer { server.stop() }
        let cases = await Self.run(server, ["connection.other-paths-refused", "connection.unknown-key-4001"])
        let paths = try #require(cases["connection.other-paths-refused"])
        #expect(paths.result == .fail)
        #expect(paths.message.contains("nothing within 2 s (the connection is still open)"), "\(paths.message)")
        #expect(
            paths.evidence?.last?.hasSuffix("[still open: no close frame, not ended]") == true,
            "\(paths.evidence ?? [])")
        #expect(cases["connection.unknown-key-4001"]?.result == .fail)
    }

    @Test func aPathRefusedWith4005AndAClosePasses() async throws {
        let server = try await Self.refusingServer(.close(0))
        defer { server.stop() }
        let cases = await Self.run(server, ["connection.other-paths-refused"])
        #expect(cases["connection.other-paths-refused"]?.result == .pass)
        #expect(cases["connection.other-paths-refused"]?.message.contains("pusher:error 4005") == true)
    }
}
