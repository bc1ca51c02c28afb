import Foundation
import PushtopServer

/// How `pushtop proxy` runs: where it listens, the server it relays to, the app it speaks for and its faults.
public struct ProxyConfiguration: Sendable {
    /// The address to listen on (`127.0.0.1` unless told; anything else needs ``allowRemote``).
    public var host: String
    /// The port to listen on (0: an ephemeral one, see ``ProxyServer/port``).
    public var port: Int
    /// The upstream's WebSocket base, `ws://HOST:PORT` or `wss://HOST:PORT` (a client's path and query are
    /// appended).
    public var upstream: String
    /// The upstream's HTTP API base (`http(s)://HOST:PORT`); by default the upstream's host and port.
    public var upstreamAPI: String?
    /// A PEM file of extra trusted roots for a `wss://` upstream (and an `https://` API).
    public var caFile: String?
    /// Whether a non-loopback ``host`` is allowed.
    public var allowRemote: Bool
    /// The app the proxy serves the console feed and the control endpoint for (both signed with its secret; the
    /// secret is never logged); without it they answer 404.
    public var app: AppCredentials?
    /// Fault rules active from the start (`--fault`).
    public var faults: [FaultRule]
    /// The longest message relayed either way (bytes, after inflation).
    public var maxMessageBytes: Int
    /// How long a client has to reconnect and resubscribe after a fault before a `recovered` row says it did not.
    public var recoveryTimeout: Duration
    /// Whether permessage-deflate is offered to clients and asked of the upstream.
    public var compression: Bool
    /// A client's request headers (and body) must arrive within this, as `serve`'s (`--request-timeout`).
    public var requestTimeout: Duration = .seconds(10)
    /// A plain HTTP connection with no new request for this long is closed, as `serve`'s.
    public var idleTimeout: Duration = .seconds(60)
    /// A client's write buffer's high water mark: past it the relay stops reading the upstream's side.
    public var maxPendingOutboundBytes = 1 << 20
    /// The `activity_timeout` (seconds) clients are told in `pusher:connection_established` when the upstream's is
    /// longer: a client then pings after this much silence (`pushtop conform --client` judges that in seconds, not
    /// Pusher's 120). `nil`: the upstream's own, unchanged.
    public var announcedActivityTimeout: Int?

    /// A proxy to `upstream`, on loopback port 6002 unless told.
    public init(
        host: String = "127.0.0.1", port: Int = 6002, upstream: String, upstreamAPI: String? = nil,
        caFile: String? = nil, allowRemote: Bool = false, app: AppCredentials? = nil, faults: [FaultRule] = [],
        maxMessageBytes: Int = 1 << 20, recoveryTimeout: Duration = .seconds(30), compression: Bool = true
    ) {
        self.host = host
        self.port = port
        self.upstream = upstream
        self.upstreamAPI = upstreamAPI
        self.caFile = caFile
        self.allowRemote = allowRemote
        self.app = app
        self.faults = faults
        self.maxMessageBytes = maxMessageBytes
        self.recoveryTimeout = recoveryTimeout
        self.compression = compression
    }

    /// Whether `host` is a loopback address (or `localhost`).
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// The HTTP API base: ``upstreamAPI``, else the upstream's scheme (`http`/`https`), host and port.
    public var upstreamAPIBase: String { apiBase }

    var apiBase: String {
        if let upstreamAPI { return upstreamAPI.hasSuffix("/") ? String(upstreamAPI.dropLast()) : upstreamAPI }
        var base = upstream
        if base.hasPrefix("wss://") {
            base = "https://" + base.dropFirst(6)
        } else if base.hasPrefix("ws://") {
            base = "http://" + base.dropFirst(5)
        }
        if let components = URLComponents(string: base), let scheme = components.scheme, let host = components.host {
            let port = components.port.map { ":\($0)" } ?? ""
            let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            return "\(scheme)://\(shownHost)\(port)"
        }
        return base
    }
}

/// Why the proxy could not start.
public enum ProxyError: Error, Sendable, CustomStringConvertible {
    /// The upstream is not a `ws://` or `wss://` URL.
    case badUpstream(String)
    /// A non-loopback address without `--allow-remote`.
    case remoteNotAllowed(host: String)
    case couldNotStart(host: String, port: Int, reason: String)
    /// The CA file cannot be used.
    case badCAFile(path: String, reason: String)

    /// What went wrong, for a person.
    public var description: String {
        switch self {
        case .badUpstream(let url): return "the upstream '\(url)' is not a ws:// or wss:// URL"
        case .remoteNotAllowed(let host):
            return
                "listening on \(host) would let other machines use the proxy: pass --allow-remote to do so on purpose"
        case .couldNotStart(let host, let port, let reason): return "could not listen on \(host):\(port): \(reason)"
        case .badCAFile(let path, let reason): return "cannot use the CA file \(path): \(reason)"
        }
    }
}
