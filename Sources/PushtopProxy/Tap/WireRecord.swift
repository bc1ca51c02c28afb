/// What a judge of clients sees of the proxy's traffic (``WireTap``): every WebSocket upgrade that arrives, every
/// text message either way on a relayed connection, and how each connection ended, stamped when the proxy saw it.
package struct WireRecord: Sendable {
    /// What happened.
    package enum Event: Sendable, Equatable {
        /// A client asked to upgrade `target` (path and query). `connection` is the relayed connection's number;
        /// `nil` when the proxy refused the attempt (`refusal` says why: an `outage` fault, the upstream).
        case attempt(connection: Int?, remoteHost: String, target: String, refusal: String?)
        /// A text message on connection `connection`: from the client, or to it (relayed from the upstream, or
        /// written by the proxy itself: a fault's refusal, a ping the judge sent).
        case message(connection: Int, fromClient: Bool, text: String)
        /// Connection `connection`'s client socket ended: the close code (none for a dropped TCP connection) and
        /// who closed (`client`, `server`, `proxy`), as the console's `disconnection` row says.
        case ended(connection: Int, code: Int?, closedBy: String?)
    }

    package let at: ContinuousClock.Instant
    package let event: Event

    package init(at: ContinuousClock.Instant = .now, _ event: Event) {
        self.at = at
        self.event = event
    }
}

/// Where the proxy reports ``WireRecord``s: called on the connection's event loop, so it must return at once.
package typealias WireTap = @Sendable (WireRecord) -> Void
