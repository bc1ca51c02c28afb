import Foundation
import PusherProtocol
import PushtopTestSupport
import ServiceLifecycle
import ServiceLifecycleTestKit
import Synchronization
import Testing

@testable import PushtopServer

/// The server's long-lived pieces as services: what each does when the server shuts down gracefully.
@Suite("Lifecycle services", .timeLimit(.minutes(1)))
struct LifecycleServicesTests {
    /// Something that happened, or not yet.
    final class Flag: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }

    /// A service that never ends on its own; it notes whether it was cancelled.
    struct Stubborn: Service {
        let cancelled = Flag()

        func run() async throws {
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                cancelled.set()
                throw error
            }
        }
    }

    /// A service that ends when the shutdown starts.
    struct Obedient: Service {
        func run() async throws {
            try await gracefulShutdown()
        }
    }

    @Test func aServiceThatOutlivesItsShutdownDeadlineIsCancelled() async throws {
        let stubborn = Stubborn()
        let limit = Duration.milliseconds(50)
        let started = ContinuousClock.now
        await testGracefulShutdown { trigger in
            trigger.triggerGracefulShutdown()
            _ = try? await ShutdownDeadline(service: stubborn, limit: limit).run()
        }
        #expect(stubborn.cancelled.isSet)
        // At the deadline, with room for a loaded machine: not after the minute the service would have run.
        #expect(ContinuousClock.now - started < LoadedMachine.bound(limit))
    }

    @Test func aServiceThatStopsInTimeIsNotCancelled() async throws {
        try await testGracefulShutdown { trigger in
            trigger.triggerGracefulShutdown()
            try await ShutdownDeadline(service: Obedient(), limit: .seconds(30)).run()
        }
    }

    @Test func withoutAShutdownTheServiceRuns() async throws {
        let stubborn = Stubborn()
        let running = Task { try await ShutdownDeadline(service: stubborn, limit: .milliseconds(1)).run() }
        try await Task.sleep(for: .milliseconds(100))
        #expect(!stubborn.cancelled.isSet, "the deadline runs from the shutdown, not the start")
        running.cancel()
        _ = try? await running.value
    }

    /// A service that notes that it ran, and ends with the server.
    struct Recording: Service {
        let ran = Flag()

        func run() async throws {
            ran.set()
            try await gracefulShutdown()
        }
    }

    @Test func aGatedServiceStartsOnceItsGateOpens() async throws {
        let recording = Recording()
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        try await testGracefulShutdown { trigger in
            async let service: Void = GatedService(gate: gate, service: recording).run()
            try await Task.sleep(for: .milliseconds(50))
            #expect(!recording.ran.isSet, "the gate is closed")
            open.finish()
            try await waitUntil("the gated service to run") { recording.ran.isSet }
            trigger.triggerGracefulShutdown()
            try await service
        }
    }

    @Test func aGatedServiceWhoseServerStopsFirstNeverStarts() async throws {
        let recording = Recording()
        let (gate, _) = AsyncStream.makeStream(of: Void.self)
        try await testGracefulShutdown { trigger in
            trigger.triggerGracefulShutdown()
            try await GatedService(gate: gate, service: recording).run()
        }
        #expect(!recording.ran.isSet)
    }

    @Test func theHubClosesEveryConnectionWith1001AndRefusesNewOnesWhenTheServerStops() async throws {
        let hub = PusherHub(configuration: ServerConfiguration())
        let connection = await hub.open(appKey: "pushtop-key", protocolVersion: "7")
        await testGracefulShutdown { trigger in
            trigger.triggerGracefulShutdown()
            await HubService(hub: hub, sweepInterval: .milliseconds(10)).run()
        }
        var close: Int?
        for await frame in connection.frames {
            if case .close(let code, _) = frame { close = code }
        }
        #expect(close == 1001)
        #expect(await hub.isShuttingDown)
        let late = await hub.open(appKey: "pushtop-key", protocolVersion: "7")
        #expect(late.socketID == nil, "refused with 4200")
    }

    @Test func theHubSweepsWhileTheServerRuns() async throws {
        var configuration = ServerConfiguration()
        configuration.activityTimeout = 0.05
        let hub = PusherHub(configuration: configuration)
        let connection = await hub.open(appKey: "pushtop-key", protocolVersion: "7")
        let pinged = Flag()
        await testGracefulShutdown { trigger in
            async let service: Void = HubService(hub: hub, sweepInterval: .milliseconds(20)).run()
            for await frame in connection.frames where frame.text?.contains(PusherEventName.ping) == true {
                pinged.set()
                break
            }
            trigger.triggerGracefulShutdown()
            await service
        }
        #expect(pinged.isSet, "a silent connection was pinged")
    }

    @Test func theInboxStopsWhenTheServerStops() async throws {
        let hub = PusherHub(configuration: ServerConfiguration())
        await testGracefulShutdown { trigger in
            async let service: Void = HubInboxService(hub: hub).run()
            trigger.triggerGracefulShutdown()
            await service
        }
    }

    @Test func aDeadWebhookReceiverHoldsTheShutdownUpForTheDrainTimeoutAtMost() async throws {
        var configuration = WebhookConfiguration()
        configuration.urls = ["http://127.0.0.1:9/hook"]
        let webhooks = WebhookDispatcher(
            configuration: configuration, app: AppCredentials(),
            logger: .init(label: "test.webhooks"))
        webhooks.enqueue(.channelOccupied(channel: "news"))
        let drainTimeout = Duration.milliseconds(200)
        let started = ContinuousClock.now
        await testGracefulShutdown { trigger in
            trigger.triggerGracefulShutdown()
            await WebhookService(webhooks: webhooks, drainTimeout: drainTimeout).run()
        }
        // The drain timeout, with room for a loaded machine, not however long the retries would go on.
        #expect(ContinuousClock.now - started < LoadedMachine.bound(drainTimeout))
    }

    @Test func simulatedMembersJoinAtTheStartAndLeaveWhenTheServerStops() async throws {
        let hub = PusherHub(configuration: ServerConfiguration())
        var simulation = SimulatorConfiguration()
        simulation.initialMembers = 3
        let simulator = Simulator(
            hub: hub, app: AppCredentials(), configuration: simulation,
            logger: .init(label: "test.simulator"))
        let joined = Flag()
        try await testGracefulShutdown { trigger in
            async let service: Void = SimulatorService(simulator: simulator) { joined.set() }.run()
            try await waitUntil("the simulated members to join") { joined.isSet }
            #expect(await simulator.memberNames.count == 3)
            trigger.triggerGracefulShutdown()
            await service
        }
        #expect(await simulator.memberNames.isEmpty)
        #expect(await hub.connectionCount == 0)
    }

    @Test func aSingleNodeJoinsAtOnceAndStopsWithTheServer() async throws {
        let hub = PusherHub(configuration: ServerConfiguration())
        let joined = Flag()
        await testGracefulShutdown { trigger in
            async let service: Void = BackplaneService(backplane: LocalBackplane(), hub: hub) { joined.set() }.run()
            trigger.triggerGracefulShutdown()
            await service
        }
        #expect(joined.isSet)
    }
}
