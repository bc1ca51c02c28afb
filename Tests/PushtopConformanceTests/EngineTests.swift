import AsyncHTTPClient
import Foundation
import NIOCore
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@testable import PushtopConformance

/// The engine's parts against an in-process server: the probe socket, the webhook listener, one group run whole.
@Suite struct EngineTests {
    static func target(_ server: EmbeddedServer) -> ConformanceTarget {
        let app = server.configuration.app
        return ConformanceTarget(
            nodes: [
                .single(
                    host: "127.0.0.1", port: server.port, useTLS: false, appID: app.id, key: app.key,
                    secret: app.secret)
            ],
            appID: app.id, key: app.key, secret: app.secret)
    }

    @Test func aProbeSeesEveryFrameBothWaysAndAnswersTheCloseHandshake() async throws {
        try await withServer { server in
            let socket = try await ProbeSocket.connect(
                url: "ws://127.0.0.1:\(server.port)/app/\(server.configuration.app.key)?protocol=7")
            let established = await socket.waitFor(5) { $0.message?.event == PusherEventName.connectionEstablished }
            #expect(established != nil)
            socket.sendFrame(opcode: .ping, bytes: [1, 2])
            #expect(await socket.waitFor(5) { $0.kind == .pong } != nil)
            socket.close(code: 1000)
            let reply = await socket.waitFor(5) {
                if case .close = $0.kind { $0.direction == .received } else { false }
            }
            #expect(reply != nil)
            #expect(await socket.waitFor(5) { if case .ended = $0.kind { true } else { false } } != nil)
            #expect(socket.frames.first?.direction == .received)
            #expect(socket.frames.contains { $0.direction == .sent && $0.kind == .ping })
        }
    }

    /// Pusher bills events and deliveries, "Ping/pong messages [...] are not counted": a run's count must not grow
    /// with the keep-alive a slow run exchanges.
    @Test func pingsAndPongsAreNotCountedAsBilledMessages() async throws {
        try await withServer({ $0.activityTimeout = 1 }) { server in
            let socket = try await ProbeSocket.connect(
                url: "ws://127.0.0.1:\(server.port)/app/\(server.configuration.app.key)?protocol=7")
            defer { socket.drop() }
            #expect(await socket.waitFor(5) { $0.message?.event == PusherEventName.connectionEstablished } != nil)
            socket.send(event: PusherEventName.subscribe, data: ["channel": "billed"])
            #expect(await socket.waitFor(5) { $0.message?.event == PusherEventName.subscriptionSucceeded } != nil)
            socket.send(event: PusherEventName.ping, data: [:])
            #expect(await socket.waitFor(5) { $0.message?.event == PusherEventName.pong } != nil)
            // The server's own ping, after its activity timeout of silence.
            #expect(
                await socket.waitFor(10) { $0.direction == .received && $0.message?.event == PusherEventName.ping }
                    != nil)
            let billed = socket.frames.filter(\.isBillable).compactMap(\.message?.event)
            let first = [PusherEventName.connectionEstablished, PusherEventName.subscriptionSucceeded]
            #expect(billed.starts(with: first), "\(billed)")
            #expect(!billed.contains(PusherEventName.ping) && !billed.contains(PusherEventName.pong), "\(billed)")
            #expect(!socket.frames.filter(\.isBillable).contains { $0.direction == .sent })
        }
    }

    @Test func aRefusedUpgradeIsAnErrorWithItsStatus() async throws {
        try await withServer { server in
            do {
                _ = try await ProbeSocket.connect(url: "ws://127.0.0.1:\(server.port)/not-pusher")
                Issue.record("the upgrade was accepted")
            } catch {
                guard case ProbeError.refused(let status, _)? = error as? ProbeError else {
                    Issue.record("\(error)"); return
                }
                #expect((400..<500).contains(status))
            }
        }
    }

    @Test func aWaitThatNeverMatchesEndsAtItsTimeout() async throws {
        try await withServer { server in
            let socket = try await ProbeSocket.connect(
                url: "ws://127.0.0.1:\(server.port)/app/\(server.configuration.app.key)?protocol=7")
            let started = ContinuousClock.now
            #expect(await socket.waitFor(0.3) { $0.message?.event == "never" } == nil)
            // Ended by its timeout, not left waiting: the timeout, and room for a loaded machine.
            #expect(ContinuousClock.now - started < LoadedMachine.bound(.milliseconds(300)))
            socket.drop()
        }
    }

    @Test func theWebhookListenerKeepsRequestsAndFailsWhenAsked() async throws {
        let listener = try await WebhookListener.start(host: "127.0.0.1", port: 0)
        listener.fail(1, status: 503) { $0.bodyText.contains("first") }
        func post(_ body: String) async throws -> Int {
            var request = HTTPClientRequest(url: "http://\(listener.address)/hooks")
            request.method = .POST
            request.headers.add(name: "X-Pusher-Key", value: "k")
            request.body = .bytes(ByteBuffer(string: body))
            return Int(try await HTTPClient.shared.execute(request, timeout: .seconds(5)).status.code)
        }
        #expect(try await post(#"{"events":[{"name":"first"}]}"#) == 503)
        #expect(try await post(#"{"events":[{"name":"first"}]}"#) == 200)
        let hit = await listener.waitFor(1) { $0.status == 200 }
        #expect(hit?.events.first?["name"]?.stringValue == "first")
        #expect(hit?.headers["x-pusher-key"] == "k")
        #expect(listener.received.map(\.status) == [503, 200])
        await listener.stop()
    }

    @Test func thePresenceGroupPassesAgainstTheEmbeddedServer() async throws {
        try await withServer { server in
            let runner = ConformanceRunner(target: Self.target(server), only: ["presence", "private"])
            try await runner.preflight()
            let report = await runner.run()
            #expect(
                report.summary.fail == 0,
                "\(report.cases.filter { $0.result == .fail }.map { "\($0.id): \($0.message)" })")
            #expect(report.summary.pass >= 30)
            #expect(report.cases.first { $0.id == "presence.member-limit-100" }?.result == .skipped)
        }
    }

    @Test func theConnectionGroupPassesAgainstTheEmbeddedServer() async throws {
        try await withServer { server in
            let runner = ConformanceRunner(target: Self.target(server), only: ["connection"])
            let report = await runner.run()
            #expect(
                report.summary.fail == 0,
                "\(report.cases.filter { $0.result == .fail }.map { "\($0.id): \($0.message) \($0.evidence ?? [])" })")
            let ending = report.cases.first { $0.id == "connection.refusals-close-with-their-code" }
            #expect(ending?.message.contains("an unknown key: close 4001") == true, "\(ending?.message ?? "")")
        }
    }

    @Test func theOrderReachAndVacatedByDisconnectCasesPassAgainstTheEmbeddedServer() async throws {
        try await withServer { server in
            var target = Self.target(server)
            target.destructive = true
            let runner = ConformanceRunner(
                target: target,
                only: [
                    "api.channels-drops-on-", "api.channel-unoccupied-on-", "api.batch-order-kept",
                    "api.event-reaches-300-subscribers",
                ])
            let report = await runner.run()
            #expect(report.cases.count == 6)
            #expect(
                report.summary.pass == 6,
                "\(report.cases.filter { $0.result != .pass }.map { "\($0.id): \($0.message)" })")
            let reach = report.cases.first { $0.id == "api.event-reaches-300-subscribers" }
            #expect(reach?.message == "300 of 300 received it")
        }
    }

    @Test func aPreflightSaysWhatIsWrongOnce() async throws {
        try await withServer { server in
            var wrong = Self.target(server)
            wrong.secret = "not-the-secret"
            wrong.nodes[0].api.secret = "not-the-secret"
            do {
                try await ConformanceRunner(target: wrong).preflight()
                Issue.record("a wrong secret passed the preflight")
            } catch {
                guard let error = error as? PreflightError, case .refusedSignature = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(error.description.contains("--secret"))
            }
        }
    }
}
