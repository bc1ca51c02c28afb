import ServiceLifecycle

/// The hub's turn loop as a service: it takes the WebSockets' events from the inbox, in order, until the server
/// stops.
///
/// - Important: Register it before the HTTP server: services stop in reverse order, and connections that arrive or
///   close while the server drains still need the hub (a late connection is refused with 4200).
struct HubInboxService: Service {
    let hub: PusherHub

    func run() async {
        await withGracefulShutdownHandler {
            await hub.run()
        } onGracefulShutdown: { [inbox = hub.inbox] in
            inbox.finish()
        }
    }
}
