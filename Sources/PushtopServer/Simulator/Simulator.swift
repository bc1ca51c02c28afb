import Foundation
import Logging
import PusherProtocol

/// Built-in demo traffic: members join and leave `presence-lobby`, prices tick on `ticker`, members chat on
/// `chat`, and encrypted messages flow on `private-encrypted-vault`.
///
/// It is a publisher like any other: members are in-process clients of the hub (they subscribe with signed
/// auth, as a browser would) and events go through ``PusherHub/publish(_:)``, the path the HTTP API uses.
public actor Simulator {
    let hub: PusherHub
    let app: AppCredentials
    let configuration: SimulatorConfiguration
    let logger: Logger
    private var isStarted = false
    private var members: [SimulatedMember] = []
    private var startedAt = Date()
    private var prices: [String: Double] = ["BTC": 64_250, "ETH": 3_120, "SOL": 148, "PUSH": 7.25]
    /// Encrypted events that could not be sealed, so were not sent (also `pushtop_simulator_seal_failures_total`).
    public private(set) var sealFailures = 0

    /// A simulator publishing through `hub` as `app`; call ``start()`` to begin.
    public init(hub: PusherHub, app: AppCredentials, configuration: SimulatorConfiguration, logger: Logger) {
        self.hub = hub
        self.app = app
        self.configuration = configuration
        self.logger = logger
    }

    /// The first members join (once); ``run()`` makes the rest happen.
    public func start() async {
        guard !isStarted else { return }
        isStarted = true
        startedAt = Date()
        for _ in 0..<min(configuration.initialMembers, configuration.maxMembers) { await changeMembership(join: true) }
        logger.info("simulator started", metadata: ["members": "\(members.count)"])
    }

    /// Runs the traffic on its timers (prices, chat, membership, encrypted messages) until the task is cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.every(self.configuration.tickInterval) { await $0.tick() } }
            group.addTask { await self.every(self.configuration.chatInterval) { await $0.chat() } }
            group.addTask {
                await self.every(self.configuration.membershipInterval) { await $0.changeMembership(join: nil) }
            }
            group.addTask { await self.every(self.configuration.encryptedInterval) { await $0.sendEncrypted() } }
        }
    }

    /// Simulated members leave (after ``run()`` ended).
    public func stop() async {
        for member in members { await member.leave(hub: hub) }
        members = []
    }

    /// Names of the simulated members online now.
    public var memberNames: [String] { members.map(\.name) }

    private nonisolated func every(_ seconds: Double, _ action: @Sendable (Simulator) async -> Void) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(Int64(max(0.01, seconds) * 1000)))
            guard !Task.isCancelled else { return }
            await action(self)
        }
    }

    /// Joins (true), leaves (false) or picks at random (nil), keeping between 1 and `maxMembers` online.
    func changeMembership(join: Bool?) async {
        if join == nil, let duration = configuration.membershipDuration, Date().timeIntervalSince(startedAt) >= duration
        {
            return  // the roster holds still from now on
        }
        let online = Set(members.map(\.name))
        let offline = configuration.memberNames.filter { !online.contains($0) }
        let shouldJoin = join ?? (members.count <= 1 || (members.count < configuration.maxMembers && Bool.random()))
        if shouldJoin, let name = offline.randomElement() {
            if let member = await SimulatedMember.join(
                name: name, channel: configuration.presenceChannel, hub: hub, app: app)
            {
                members.append(member)
            }
        } else if !shouldJoin, members.count > 1, let index = members.indices.randomElement() {
            let member = members.remove(at: index)
            await member.leave(hub: hub)
        }
    }

    func tick() async {
        guard let symbol = prices.keys.randomElement(), let old = prices[symbol] else { return }
        let change = Double.random(in: -0.006...0.006)
        let price = (old * (1 + change) * 100).rounded() / 100
        prices[symbol] = price
        let data: JSONValue = [
            "symbol": .string(symbol), "price": .number(price),
            "change_pct": .number((change * 10_000).rounded() / 100),
            "ts": .number((Date().timeIntervalSince1970 * 1000).rounded()),
        ]
        await publish(configuration.tickerChannel, "price-update", data.jsonString)
    }

    private static let lines = [
        "anyone else seeing the new build?", "deploy is green", "lunch?", "pushed a fix for the flaky test",
        "the dashboard looks great", "who owns the presence pane?", "brb", "ship it", "reviewing now",
        "tickers look lively today",
    ]

    func chat() async {
        let author = members.randomElement()?.name ?? "pushtop"
        let data: JSONValue = ["user": .string(author), "text": .string(Self.lines.randomElement()!)]
        await publish(configuration.chatChannel, "message", data.jsonString)
    }

    func sendEncrypted() async {
        let channel = configuration.encryptedChannel
        let key = ChannelAuthSignature.sharedSecret(channel: channel, masterKey: app.encryptionMasterKey)
        let secret: JSONValue = [
            "message": .string("vault code \(Int.random(in: 1000...9999))"),
            "from": .string(members.randomElement()?.name ?? "pushtop"),
        ]
        let data: String
        do {
            data = try ServerSecretBox.sealForPusher(secret.jsonString, key: key)
        } catch {
            // Nothing is published: an event that cannot be opened would only show as a decryption error.
            sealFailures += 1
            logger.error(
                "simulator could not encrypt an event; none was sent",
                metadata: ["channel": "\(channel)", "error": "\(error)"])
            await hub.recordSimulatorSealFailure(channel: channel, reason: "\(error)")
            return
        }
        await publish(channel, "secret", data)
    }

    private func publish(_ channel: String, _ name: String, _ data: String) async {
        do {
            try await hub.publish(PublishRequest(channels: [channel], name: name, data: data))
        } catch {
            logger.warning("simulator could not publish", metadata: ["error": "\(error)"])
        }
    }
}
