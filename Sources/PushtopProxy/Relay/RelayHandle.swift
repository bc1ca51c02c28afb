import NIOCore

/// A relayed connection as other threads hold it: the proxy's registry of open connections, and through it the
/// control endpoint, a judge of clients and a fault rule added while connections are open.
///
/// The ``Relay`` itself is not `Sendable` (its state is its event loop's); the handle holds it `NIOLoopBound`, so it
/// is reached only on that loop, and NIO checks that it is.
struct RelayHandle: Sendable {
    /// The relay's connection number (``Relay/number``).
    let number: Int
    private let id: ObjectIdentifier
    private let relay: NIOLoopBound<Relay>

    /// A handle on `relay`, made on its event loop.
    init(_ relay: Relay) {
        number = relay.number
        id = ObjectIdentifier(relay)
        self.relay = NIOLoopBound(relay, eventLoop: relay.eventLoop)
    }

    /// Whether this is a handle on `relay`.
    func holds(_ relay: Relay) -> Bool { id == ObjectIdentifier(relay) }

    /// Runs `body` with the relay on its event loop: now when called there, else as soon as the loop can.
    func onLoop(_ body: @escaping @Sendable (Relay) -> Void) {
        let relay = self.relay
        if relay.eventLoop.inEventLoop {
            body(relay.value)
        } else {
            relay.eventLoop.execute { body(relay.value) }
        }
    }
}
