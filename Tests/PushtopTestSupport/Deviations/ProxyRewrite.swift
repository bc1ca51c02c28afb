import HummingbirdWebSocket
import NIOWebSocket
import PusherProtocol

/// Where a frame goes, as a rewrite decides.
enum Hop: Sendable {
    /// To the server.
    case server(String)
    /// To this connection's client.
    case client(String)
    /// To this connection's client after `seconds`.
    case clientLater(String, Double)
    /// To the clients of every other proxied connection subscribed to `channel`.
    case others(channel: String, String)
    /// To the clients of every other proxied connection not subscribed to `channel`.
    case notSubscribed(channel: String, String)
    /// Close this connection's client with `code`.
    case close(Int)
}

/// An HTTP API request on its way to the server: change any part (a signed request is signed again).
struct ProxiedRequest: Sendable {
    var method: String
    var path: String
    var query: [String: String]
    var body: String
    /// Whether the request came signed right for the app (whatever its timestamp).
    var signedRight = false
}

/// One webhook post the proxy makes.
struct WebhookPost: Sendable {
    var body: String
    var contentType = "application/json"
    /// The secret it is signed with; `nil`: the app's.
    var secret: String?
}

/// What a deviation changes; every default passes things through unchanged.
public struct ProxyRewrite: Sendable {
    /// The upstream URI for a WebSocket path, or `nil` to refuse the upgrade.
    var upgrade: @Sendable (_ path: String, _ key: String) -> String? = { path, _ in
        path.hasPrefix("/app/") ? path : nil
    }
    /// A whole text message from a client.
    var fromClient: @Sendable (_ text: String, _ message: PusherMessage?, _ link: ProxyLink) -> [Hop] = { text, _, _ in
        [.server(text)]
    }
    /// Whether to pass a fragment (continuation frame) of a client's message to the server.
    var passFragment: @Sendable (_ opcode: WebSocketDataFrame.Opcode) -> Bool = { _ in true }
    /// A text message from the server.
    var fromServer: @Sendable (_ text: String, _ message: PusherMessage?, _ link: ProxyLink) -> [Hop] = { text, _, _ in
        [.client(text)]
    }
    /// An HTTP request before it is forwarded; `true` signs it anew (a request that came signed right is signed
    /// anew when changed).
    var request: @Sendable (inout ProxiedRequest, ProxyHub) -> Bool = { _, _ in false }
    /// The server's answer to an HTTP request, before it goes back.
    var answer: @Sendable (_ request: ProxiedRequest, _ status: Int, _ body: String, ProxyHub) -> (Int, String) = {
        _, status, body, _ in (status, body)
    }
    /// The posts to make for one webhook body the server posted.
    var webhook: @Sendable (_ body: String) -> [WebhookPost] = { [WebhookPost(body: $0)] }
    /// What to send when a connection ends (before it is forgotten).
    var ended: @Sendable (ProxyLink) -> [Hop] = { _ in [] }
    /// Client input that "stops the server": every connection closes, nothing is accepted any more.
    var stopsServer: @Sendable (_ frame: WebSocketDataFrame, _ link: ProxyLink) -> Bool = { _, _ in false }
    /// Whether a connection that ends, its last message a subscribe, stops the server. (Whether the server's answer
    /// reached the proxy before the client's drop is a race the dropping client never sees, so it does not count.)
    var pendingSubscribeDropStopsServer = false
    /// Whether the server's side of a connection stays open (and subscribed) when its client leaves, with a close
    /// frame or by dropping the TCP connection, until the proxy stops: a server that never notices a disconnect.
    var keepsDisconnected = false

    /// A rewrite that changes nothing.
    public init() {}
}
