import PusherProtocol

/// What the dashboard asks of the client. The executable adapts the real client to it; tests and the
/// preview use ``ScriptedBackend``.
///
/// Results come back through the app's ``DashboardFeed`` as ``ClientEvent``s (`.subscribed`, `.subscriptionError`,
/// `.unsubscribed`, `.error(code: nil, …)`, state changes); a thrown error is shown in the log as well.
public protocol DashboardBackend: Sendable {
    /// Host, port and TLS, for the connection pane (e.g. `ws-eu.pusher.com:443 TLS`).
    var connectionDescription: String { get }
    func subscribe(_ channel: String) async throws
    func unsubscribe(_ channel: String) async
    /// Sends a client event (`client-…`) on a private or presence channel.
    func trigger(channel: String, event: String, data: JSONValue) async throws
    func connect() async
    func disconnect() async
    /// Signs the user in (results come back as `.signedIn` / `.signInFailed`).
    func signIn() async throws
    /// Stops being signed in.
    func signOut() async
}
