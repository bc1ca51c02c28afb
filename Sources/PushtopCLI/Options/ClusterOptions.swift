import ArgumentParser
import Foundation
import PushtopServer

/// Options of `pushtop serve` that make several nodes act as one app through Redis.
struct ClusterOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Join a cluster through this Redis: redis://HOST:PORT[/DB] (default: $PUSHTOP_REDIS_URL; none: one process, no Redis).",
            valueName: "URL"))
    var redis: String?

    @Option(
        name: .customLong("node-id"),
        help: ArgumentHelp(
            "This node's name in the cluster, logs, metrics and /health (default: random).", valueName: "ID"))
    var nodeID: String?

    @Option(
        name: .customLong("redis-prefix"),
        help: ArgumentHelp(
            "Prefix of the cluster's Redis keys and channels (several clusters or apps on one Redis).",
            valueName: "PREFIX"))
    var redisPrefix: String = "pushtop"

    @Option(
        name: .customLong("node-timeout"),
        help: ArgumentHelp(
            "Seconds without a heartbeat after which the other nodes remove a node's members (removed within 1.25x this).",
            valueName: "SECONDS"))
    var nodeTimeout: Double = 20

    /// `--redis`, else `PUSHTOP_REDIS_URL`.
    var redisURL: String? {
        if let redis { return redis }
        let fromEnvironment = ProcessInfo.processInfo.environment["PUSHTOP_REDIS_URL"] ?? ""
        return fromEnvironment.isEmpty ? nil : fromEnvironment
    }

    func validate() throws {
        if let redisURL, !redisURL.lowercased().hasPrefix("redis://") {
            throw ValidationError("--redis must be redis://HOST:PORT[/DB]")
        }
        if let nodeID {
            guard !nodeID.isEmpty, nodeID.count <= 100,
                nodeID.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != ":" })
            else { throw ValidationError("--node-id must be 1 to 100 ASCII characters without spaces or ':'") }
        }
        guard !redisPrefix.isEmpty, !redisPrefix.contains(where: \.isWhitespace) else {
            throw ValidationError("--redis-prefix must be a non-empty word")
        }
        guard nodeTimeout >= 0.2, nodeTimeout <= 3600 else {
            throw ValidationError("--node-timeout must be 0.2 to 3600 seconds")
        }
    }

    /// The cluster to join, or `nil` for a single node.
    var configuration: ClusterConfiguration? {
        redisURL.map {
            ClusterConfiguration(redisURL: $0, nodeID: nodeID, prefix: redisPrefix, nodeTimeout: nodeTimeout)
        }
    }
}

extension ClusterOptions {
    /// The Redis URL for output: host and port, never a password.
    var redisDisplay: String {
        guard let url = redisURL else { return "-" }
        guard let at = url.lastIndex(of: "@") else { return url }
        return "redis://***@" + url[url.index(after: at)...]
    }
}
