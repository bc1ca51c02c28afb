import PusherChannels
import PushtopDashboard

/// The dashboard's view of the real client: its commands go to the `PusherClient`, its results come back
/// through the client's event batches, posted to the dashboard's feed.
struct ClientDashboardBackend: DashboardBackend {
    let client: PusherClient

    var connectionDescription: String {
        let options = client.options
        let tls = options.connection.useTLS
        let port = options.port ?? (tls ? 443 : 80)
        return "\(options.resolvedHost):\(port) \(tls ? "TLS" : "no TLS")"
    }

    func subscribe(_ channel: String) async throws {
        try await client.subscribe(channel)
    }

    func unsubscribe(_ channel: String) async {
        await client.unsubscribe(channel)
    }

    func trigger(channel: String, event: String, data: JSONValue) async throws {
        try await client.trigger(channel: channel, event: event, data: data)
    }

    func connect() async {
        await client.connect()
    }

    func disconnect() async {
        await client.disconnect()
    }

    func signIn() async throws {
        try await client.signIn()
    }

    func signOut() async {
        await client.signOut()
    }
}
