import Foundation

/// A real `pushtop serve` process on a free loopback port: the one way the end-to-end tests start a server of
/// their own (several of them with the same app make an unjoined, misconfigured cluster; with `--redis`, a
/// cluster).
public final class ServeNode: Sendable {
    public let process: PushtopProcess
    public let port: Int
    /// The app this node serves.
    public let key: String, secret: String, appID: String
    /// The app of ``start(key:secret:appID:extra:)`` when none is given.
    public static let key = "node-key", secret = "node-secret", appID = "42"

    /// `HOST:PORT`, as `--node` takes it.
    public var address: String { "127.0.0.1:\(port)" }

    private init(process: PushtopProcess, port: Int, key: String, secret: String, appID: String) {
        self.process = process
        self.port = port
        self.key = key
        self.secret = secret
        self.appID = appID
    }

    /// Starts `pushtop serve --port 0` and waits until it says where it listens.
    public static func start(
        key: String = ServeNode.key, secret: String = ServeNode.secret, appID: String = ServeNode.appID,
        extra: [String] = []
    ) async throws -> ServeNode {
        let process = try PushtopProcess(
            [
                "serve", "--port", "0", "--key", key, "--secret", secret, "--app-id", appID,
                "--log-level", "error",
            ] + extra)
        let port = try await process.listeningPort("serve")
        return ServeNode(process: process, port: port, key: key, secret: secret, appID: appID)
    }

    /// `count` nodes of one app, started one after the other (not joined, unless `extra` has `--redis`).
    public static func start(
        _ count: Int, key: String = ServeNode.key, secret: String = ServeNode.secret, appID: String = ServeNode.appID,
        extra: [String] = []
    ) async throws -> [ServeNode] {
        var nodes: [ServeNode] = []
        for _ in 0..<count { nodes.append(try await start(key: key, secret: secret, appID: appID, extra: extra)) }
        return nodes
    }

    /// A joined pair: a node, and a second way to it through a ``FaultProxy`` (`HOST:PORT`); taking the proxy down is
    /// a node dying.
    public static func startJoinedPair() async throws -> (node: ServeNode, proxy: FaultProxy, second: String) {
        let node = try await start()
        let proxy = try await FaultProxy.start(upstreamPort: node.port)
        return (node, proxy, "127.0.0.1:\(proxy.port)")
    }

    /// Publishes an event through this node's HTTP API with `pushtop trigger`; throws unless it exits 0.
    public func trigger(_ channel: String, _ event: String, data: String = #"{"n":1}"#) async throws {
        let run = try await CommandRun.run(
            PushtopProcess.binary.path,
            [
                "trigger", "--port", "\(port)", "--key", key,
                "--secret", secret, "--app-id", appID, channel, event, data,
            ], timeout: 30)
        guard run.status == 0 else {
            throw TestFailure("pushtop trigger \(channel) \(event) failed (\(run.status)): \(run.stderr.suffix(300))")
        }
    }

    /// SIGTERM, and waits for the exit.
    public func stop() async {
        process.signal(SIGTERM)
        _ = try? await process.exitCode()
    }

    /// SIGKILL: the node dies without a goodbye.
    public func kill() async {
        process.signal(SIGKILL)
        _ = try? await process.exitCode()
    }
}

/// A failure a helper throws, with what a person needs to act on it.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
