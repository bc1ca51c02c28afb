import Hummingbird
import NIOCore
import Synchronization

/// The connection of an HTTP API caller, for the debug feed: the connection puts its peer's address in a header of
/// its own before Hummingbird's router sees the request (any such header a client sent is replaced), and, for a
/// console feed, the token by which the feed learns that its client is gone (``ConsoleClientWatch``).
enum ConsolePeer {
    static let fieldName = "x-pushtop-peer-address"
    static let connectionFieldName = "x-pushtop-peer-connection"

    /// The plain HTTP connections whose client is still there, by token: each is registered when it starts
    /// (``ConsoleClientWatch``) and leaves when its client is gone.
    private static let present = Mutex<[String: EventLoopFuture<Void>]>([:])

    /// Registers a connection until `gone` completes; returns its token.
    static func register(_ channel: any Channel, gone: EventLoopFuture<Void>) -> String {
        let token = "\(UInt(bitPattern: ObjectIdentifier(channel).hashValue))"
        present.withLock { $0[token] = gone }
        gone.whenComplete { _ in _ = present.withLock { $0.removeValue(forKey: token) } }
        return token
    }

    /// The request with the peer's address in ``fieldName`` (and no other value of it).
    static func tagging(_ request: Request, address: String?) -> Request {
        tagging(request, address: address, connection: nil)
    }

    /// The request with the peer's address in ``fieldName`` and, for a console feed (`…/console`), the token of
    /// `channel` in ``connectionFieldName``; no other values of either.
    static func tagging(_ request: Request, channel: any Channel) -> Request {
        let address = channel.remoteAddress.map(ConsoleConnectionInfo.describe)
        let token = "\(UInt(bitPattern: ObjectIdentifier(channel).hashValue))"
        let feed = request.uri.path.hasSuffix("/console")
        return tagging(request, address: address, connection: feed ? token : nil)
    }

    private static func tagging(_ request: Request, address: String?, connection: String?) -> Request {
        var head = request.head
        head.headerFields[.init(fieldName)!] = address
        head.headerFields[.init(connectionFieldName)!] = connection
        return Request(head: head, body: request.body)
    }

    /// The caller's address, as the connection tagged it.
    static func address(of request: Request) -> String? { request.headers[.init(fieldName)!] }

    /// Calls `body` once the client of `request`'s connection is gone: at once when it already is (its token is no
    /// longer registered); never for a request whose connection was not tagged.
    static func whenGone(_ request: Request, _ body: @escaping @Sendable () -> Void) {
        guard let token = request.headers[.init(connectionFieldName)!] else { return }
        guard let gone = present.withLock({ $0[token] }) else { return body() }
        gone.whenComplete { _ in body() }
    }
}
