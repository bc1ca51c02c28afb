import NIOCore
import NIOHTTP1
import PusherProtocol

/// What a connection says of itself in the debug feed's `connection` row: where it comes from, its `Origin`, the
/// client library and version of its URL's `client`/`version` queries (pusher-js sends `client=js&version=8.6.0`),
/// and whether it came over TLS.
package struct ConsoleConnectionInfo: Sendable, Hashable {
    package var remoteAddress: String?
    package var origin: String?
    package var clientLibrary: String?
    package var clientVersion: String?
    package var tls: Bool?

    /// An in-process client (the simulator, library users): nothing to say.
    static let inProcess = ConsoleConnectionInfo()

    init(
        remoteAddress: String? = nil, origin: String? = nil, clientLibrary: String? = nil,
        clientVersion: String? = nil, tls: Bool? = nil
    ) {
        self.remoteAddress = remoteAddress
        self.origin = origin
        self.clientLibrary = clientLibrary
        self.clientVersion = clientVersion
        self.tls = tls
    }

    /// From a WebSocket upgrade request: its headers, its decoded query and the peer.
    package init(head: HTTPRequestHead, query: URLQuery, remote: SocketAddress?) {
        self.init(
            remoteAddress: remote.map(Self.describe), origin: head.headers["origin"].first,
            clientLibrary: query["client"], clientVersion: query["version"], tls: false)
    }

    /// `HOST:PORT` (`[HOST]:PORT` for IPv6).
    package static func describe(_ address: SocketAddress) -> String {
        let host = address.ipAddress ?? "?"
        guard let port = address.port else { return host }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
