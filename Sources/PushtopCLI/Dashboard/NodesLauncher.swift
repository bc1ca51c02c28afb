import ArgumentParser
import PusherChannels
import PushtopConfig
import PushtopDashboard

/// The dashboard on several nodes of one app (`--node`): one app per node (same key, secret, channels and TLS
/// options; the node's host and port), and the node watch (canary channel, interval).
struct NodesLauncher {
    var apps: [DashboardLauncher.App] = []
    var state: NodeState

    init(
        addresses: [NodeAddress], options: PusherClientOptions, channels: [String], signIn: Bool,
        credentials: KnownCredentials?, interval: Double
    ) throws {
        guard addresses.count == Set(addresses).count else { throw ValidationError("a --node is given twice") }
        // The canary needs the HTTP API (secret and app id) and a private channel every node subscribes.
        let canaryEnabled = credentials?.appID != nil
        let canaryChannel = "private-pushtop-canary-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
        for address in addresses {
            var o = options
            o.host = address.host
            o.port = address.port
            apps.append(
                DashboardLauncher.App(
                    label: address.description, client: PusherClient(options: o),
                    channels: channels + (canaryEnabled ? [canaryChannel] : []), signIn: signIn,
                    credentials: credentials))
        }
        state = NodeState(
            nodes: addresses.map(\.description), canaryChannel: canaryChannel, interval: interval,
            canaryEnabled: canaryEnabled)
    }
}
