import Foundation
import PusherChannels
import PusherProtocol
import PushtopConfig
import PushtopDashboard

/// `pushtop doctor --node A --node B`: after each node's own checks, one event published through the first
/// node's HTTP API must reach a subscriber on every node (the nodes act as one app).
struct CrossNodeCheck {
    var nodes: [NodeAddress]
    var options: PusherClientOptions
    var appID: String?
    var secret: String?
    var timeout: Double

    func run() async -> DoctorCheck {
        guard let appID, let secret else {
            return .skipped("nodes", "publishing across nodes needs --app-id and --secret")
        }
        let channel = "pushtop-doctor-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
        let useTLS = options.connection.useTLS
        let seen = Arrivals()
        var clients: [PusherClient] = []
        for (i, node) in nodes.enumerated() {
            var o = options
            o.host = node.host
            o.port = node.port
            let client = PusherClient(options: o)
            client.onEventBatch { batch in
                let now = Date()
                for event in batch {
                    switch event {
                    case .subscribed(channel, _): Task { await seen.subscribed(i) }
                    case .event(let e) where e.channel == channel && e.name == "pushtop-doctor":
                        Task { await seen.received(i, at: now) }
                    default: break
                    }
                }
            }
            try? await client.subscribe(channel)
            await client.connect()
            clients.append(client)
        }
        let result = await check(channel: channel, seen: seen, appID: appID, secret: secret, useTLS: useTLS)
        for client in clients { await client.shutdown() }
        return result
    }

    private func check(channel: String, seen: Arrivals, appID: String, secret: String, useTLS: Bool) async
        -> DoctorCheck
    {
        let deadline = Date().addingTimeInterval(timeout)
        // Every node's subscription first.
        while Date() < deadline, await seen.subscribedCount < nodes.count {
            try? await Task.sleep(for: .milliseconds(20))
        }
        for (i, node) in nodes.enumerated() {
            if await seen.isSubscribed(i) { continue }
            return .failed(
                "nodes", "node \(node) did not confirm the subscription to \(channel) within \(Int(timeout)) s",
                fix: "run the node's own checks (pushtop doctor --host \(node.host) --port \(node.port))")
        }
        let via = nodes[0]
        let api = PusherAPIClient(
            configuration: PusherAPIConfiguration(
                appID: appID, key: options.key, secret: secret,
                host: via.host, port: via.port, useTLS: useTLS))
        let sent = Date()
        do {
            let response = try await api.trigger(channels: [channel], event: "pushtop-doctor", data: "{}")
            guard (200..<300).contains(response.status) else {
                return .failed(
                    "nodes", "publishing via \(via) answered \(response.status): \(response.body.prefix(200))",
                    fix: "check --app-id and --secret")
            }
        } catch {
            return .failed(
                "nodes", "publishing via \(via) failed: \(error)", fix: "check the node's HTTP API (same port)")
        }
        let wait = Date().addingTimeInterval(min(timeout, 5))
        while Date() < wait, await seen.receivedCount < nodes.count { try? await Task.sleep(for: .milliseconds(20)) }
        var arrivals: [String] = []
        var missing: [String] = []
        for (i, node) in nodes.enumerated() {
            if let at = await seen.arrival(i) {
                arrivals.append("\(node) (\(Format.millis(max(0, at.timeIntervalSince(sent)))))")
            } else {
                missing.append(node.description)
            }
        }
        if !missing.isEmpty {
            return .failed(
                "nodes",
                "an event published via \(via) never reached \(missing.joined(separator: ", "))"
                    + (arrivals.isEmpty ? "" : " (it reached \(arrivals.joined(separator: ", ")))"),
                fix:
                    "the nodes are not joined: each serves only its own subscribers. Join them (pushtop serve --redis, soketi's redis adapter, Reverb's REVERB_SCALING_ENABLED)"
            )
        }
        return .passed("nodes", "an event published via \(via) reached \(arrivals.joined(separator: ", "))")
    }
}

/// What the nodes' connections saw: subscriptions confirmed, and when the event arrived.
private actor Arrivals {
    private var subscribedNodes: Set<Int> = []
    private var arrivals: [Int: Date] = [:]
    func subscribed(_ i: Int) { subscribedNodes.insert(i) }
    func received(_ i: Int, at: Date) { if arrivals[i] == nil { arrivals[i] = at } }
    var subscribedCount: Int { subscribedNodes.count }
    var receivedCount: Int { arrivals.count }
    func isSubscribed(_ i: Int) -> Bool { subscribedNodes.contains(i) }
    func arrival(_ i: Int) -> Date? { arrivals[i] }
}
