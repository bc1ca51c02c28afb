import Foundation
import Logging
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Cluster: a node killed with SIGKILL", .serialized)
struct ClusterNodeDeathTests {
    /// A real `pushtop serve --redis` node is killed with SIGKILL (no goodbye): within the node timeout the
    /// surviving node removes its member (`member_removed` to its sockets, the `member_removed` and
    /// `channel_vacated` webhooks once), and the HTTP API no longer counts it.
    ///
    /// "Within" as a user sees it: removed by the 4 s timeout configured here (5 s at most on an idle machine),
    /// allowing for a loaded one, and so before the 20 s default timeout would have done it. (A timeout of 1 s gives
    /// each Redis command 0.5 s, which a machine running other suites beside this one does not always meet.)
    @Test func survivorsRemoveAKilledNodesMembersWithinTheNodeTimeout() async throws {
        let redis = try await RedisServerProcess.start()
        defer { redis.kill() }
        let receiver = WebhookReceiver()
        try await receiver.start()
        defer { receiver.stop() }
        let prefix = "kill\(UInt32.random(in: 0...UInt32.max))"
        let nodeTimeout = 4.0

        var configuration = ServerConfiguration(port: 0)
        configuration.cluster = ClusterConfiguration(
            redisURL: redis.url, nodeID: "survivor", prefix: prefix, nodeTimeout: nodeTimeout)
        configuration.webhooks = WebhookConfiguration(urls: [receiver.url], batchWindow: 0.01)
        var logger = Logger(label: "test.survivor")
        logger.logLevel = .warning
        let survivor = try await EmbeddedServer.start(configuration, logger: logger)
        try await waitUntil(timeout: 20, "the survivor to join the cluster") { survivor.hub.backplane.health == .up }

        let doomed = try PushtopProcess([
            "serve", "--port", "0", "--redis", redis.url, "--node-id", "doomed", "--redis-prefix", prefix,
            "--node-timeout", "\(nodeTimeout)",
        ])
        try await waitUntil(timeout: 30, "the doomed node to listen") { doomed.lines.count >= 1 }
        let doomedPort = try #require(Self.port(in: doomed.lines[0]), "\(doomed.lines)")
        #expect(doomed.lines.contains { $0.contains("cluster: node doomed") })

        let ann = Self.client(port: survivor.port, userID: "ann")
        let annEvents = EventRecorder(ann)
        try await ann.subscribe("presence-room")
        await ann.connect()
        try await annEvents.wait("ann's subscription") {
            if case .subscribed(let channel, _) = $0 { return channel == "presence-room" } else { return false }
        }
        let zed = Self.client(port: doomedPort, userID: "zed")
        let zedEvents = EventRecorder(zed)
        try await zed.subscribe("presence-room")
        await zed.connect()
        try await zedEvents.wait("zed's subscription") {
            if case .subscribed(let channel, _) = $0 { return channel == "presence-room" } else { return false }
        }
        try await annEvents.wait("zed to join, from the other node") {
            if case .memberAdded(_, let member) = $0 { return member.userID == "zed" } else { return false }
        }
        // The cluster's roster, read from Redis: on a loaded machine one Redis command can outlast its 1 s (a quarter
        // of the node timeout) and the survivor answers alone until Redis answers again, so this waits for it.
        try await waitUntil(timeout: 20, "both members in the cluster's roster") {
            await survivor.hub.clusterUsers(in: "presence-room") == ["ann", "zed"]
        }

        doomed.signal(SIGKILL)
        let killedAt = Date()
        try await annEvents.wait("zed to be removed", timeout: 30) {
            if case .memberRemoved(_, let member) = $0 { return member.userID == "zed" } else { return false }
        }
        // Removed by the heartbeat's expiry: at most 1.25 × the timeout after the kill (its last heartbeat may be a
        // quarter of the timeout older than the kill, so there is no sound lower bound from the kill).
        let took = Date().timeIntervalSince(killedAt)
        #expect(took < LoadedMachine.bound(1.25 * nodeTimeout), "removed after \(took) s")
        #expect(await survivor.hub.clusterUsers(in: "presence-room") == ["ann"])
        #expect(await survivor.hub.clusterChannelSummary("presence-room").subscriptionCount == 1)

        await ann.disconnect()
        try await waitUntil(timeout: 10, "the vacated webhook") {
            receiver.accepted.flatMap(\.events).contains { $0["name"]?.stringValue == "channel_vacated" }
        }
        let events = receiver.accepted.flatMap(\.events)
        let removed = events.filter { $0["name"]?.stringValue == "member_removed" }
        #expect(removed.compactMap { $0["user_id"]?.stringValue }.sorted() == ["ann", "zed"])
        #expect(events.filter { $0["name"]?.stringValue == "channel_vacated" }.count == 1)
        await zed.disconnect()
        await survivor.shutdown()
    }

    static func client(port: Int, userID: String) -> PusherClient {
        PusherClient(
            options: PusherClientOptions(
                key: "pushtop-key", host: "127.0.0.1", port: port, connection: ConnectionConfiguration(useTLS: false),
                authorizer: EndpointAuthorizer(
                    url: "http://127.0.0.1:\(port)/pusher/auth", parameters: [("user_id", userID)])))
    }

    /// The port of "pushtop serve: listening on ws://127.0.0.1:PORT/app/KEY …".
    static func port(in line: String) -> Int? {
        guard let range = line.range(of: "127.0.0.1:") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }
}
