import PusherProtocol

/// The backend of a replay: there is no network, so every command is answered with a message saying so.
struct ReplayBackend: DashboardBackend {
    var connectionDescription: String { "replay" }

    struct NoNetwork: Error, CustomStringConvertible {
        var description: String { "this is a replay: there is no connection" }
    }

    func subscribe(_ channel: String) async throws { throw NoNetwork() }
    func unsubscribe(_ channel: String) async {}
    func trigger(channel: String, event: String, data: JSONValue) async throws { throw NoNetwork() }
    func connect() async {}
    func disconnect() async {}
    func signIn() async throws { throw NoNetwork() }
    func signOut() async {}
}
