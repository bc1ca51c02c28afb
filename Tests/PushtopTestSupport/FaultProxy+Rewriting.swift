import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket

extension FaultProxy {
    /// What a rewriting proxy changes and signs with: the deviations of the falsifiability table (``DeviationSetups``)
    /// are made of it, in front of an in-process server (`DeviationTableTests`) or of a `pushtop serve` process
    /// (`ConformCommandTests`).
    ///
    /// With it, the proxy deviates from the protocol as ``rewrite`` says: WebSocket messages rewritten, dropped, added,
    /// delayed or sent to other connections; HTTP API requests and answers altered; webhooks reshaped; or the whole
    /// server "stopped" by a hostile input. Its faults (cuts, stalls, dropped frames, shaping) still apply, to what
    /// the rewritten server sends.
    public struct Rewriting: Sendable {
        public var rewrite: ProxyRewrite
        /// The app the proxy signs anew for (rewritten HTTP API requests, relayed webhooks).
        public var key: String
        public var secret: String
        /// Where rewritten webhooks go (the server posts them to ``FaultProxy/webhookURL``).
        public var webhookTarget: String?

        public init(_ rewrite: ProxyRewrite, key: String, secret: String, webhookTarget: String? = nil) {
            self.rewrite = rewrite
            self.key = key
            self.secret = secret
            self.webhookTarget = webhookTarget
        }
    }

    /// Where the server should post webhooks to have them rewritten and relayed to the rewriting's webhook target.
    public var webhookURL: String { "http://127.0.0.1:\(port)\(ProxyHub.webhookRelayPath)" }

    /// Points a rewriting proxy at the server (one started after the proxy, to post its webhooks through it).
    public func setUpstream(_ port: Int) {
        guard let rewriter else {
            preconditionFailure("only a rewriting proxy (started with `rewriting:`) can change its server")
        }
        rewriter.hub.setUpstream(port)
    }
}

/// The message layer of a rewriting ``FaultProxy``: a WebSocket and HTTP server on a loopback port of its own that
/// the proxy's connections reach through its TCP layer. It reads each message (Hummingbird's WebSocket server to the
/// client, a ``ProbeSocket`` to the server), lets the ``ProxyRewrite`` change it, and forwards the HTTP API through
/// the same rewrite (``ProxyHub``).
final class RewriteLayer: Sendable {
    let port: Int
    let hub: ProxyHub
    private let run: GracefulServerRun

    private init(port: Int, hub: ProxyHub, run: GracefulServerRun) {
        self.port = port
        self.hub = hub
        self.run = run
    }

    static func start(upstreamPort: Int, _ rewriting: FaultProxy.Rewriting) async throws -> RewriteLayer {
        let rewrite = rewriting.rewrite
        let hub = ProxyHub(
            upstreamPort: upstreamPort, key: rewriting.key, secret: rewriting.secret, rewrite: rewrite,
            webhookTarget: rewriting.webhookTarget)
        let router = Router()
        router.on("**", method: .get) { request, context in try await hub.forward(request, context) }
        router.on("**", method: .post) { request, context in try await hub.forward(request, context) }
        let key = rewriting.key
        let server: HTTPServerBuilder = .http1WebSocketUpgrade(
            // No pings of its own: the server's pings (or their absence) are what the client sees.
            configuration: .init(ws: .init(maxFrameSize: 4 << 20, autoPing: .disabled, validateUTF8: false))
        ) { request, _, _ in
            let path = request.path ?? "/"
            guard !hub.isDown, let upstream = rewrite.upgrade(path, key) else { return .dontUpgrade }
            return .upgrade([:]) { inbound, outbound, _ in
                await hub.relay(upstreamURI: upstream, inbound: inbound, outbound: outbound)
            }
        }
        let (port, run) = await runOnLoopback(router, server: server, label: "rewriting-proxy")
        return RewriteLayer(port: port, hub: hub, run: run)
    }

    /// Closes every connection, refuses what comes next and stops listening.
    func stop() {
        hub.goDown()
        run.stop()
    }
}
