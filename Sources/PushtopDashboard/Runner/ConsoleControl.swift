/// What the debug console asks of the server behind its feed: faults on a `pushtop proxy`'s sockets. `PushtopCLI`
/// implements it (a signed POST to the proxy's control endpoint); the dashboard itself knows no sockets.
public protocol ConsoleControl: Sendable {
    /// Asks the source that showed `request.node`'s rows to inject the fault; returns what to say in the footer.
    func inject(_ request: ConsoleFaultRequest) async throws(ConsoleControlError) -> String
}
