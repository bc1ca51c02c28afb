import Hummingbird

/// The address of an HTTP API caller, for the debug feed: the connection puts it in a header of its own before
/// Hummingbird's router sees the request (any such header a client sent is replaced).
enum ConsolePeer {
    static let fieldName = "x-pushtop-peer-address"

    /// The request with the peer's address in ``fieldName`` (and no other value of it).
    static func tagging(_ request: Request, address: String?) -> Request {
        var head = request.head
        head.headerFields[.init(fieldName)!] = address
        return Request(head: head, body: request.body)
    }

    /// The caller's address, as the connection tagged it.
    static func address(of request: Request) -> String? { request.headers[.init(fieldName)!] }
}
