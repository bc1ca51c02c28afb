// Starts the embedded server, connects a client, publishes through the hub and checks what arrived.
// Exits 0 when the client received exactly what was published, 1 otherwise: the shape of a test of your app
// against a real Pusher-protocol server, with no network and no account.
//
//   swift run example-embedded-check
import Foundation
import Logging
import PusherChannels
import PushtopServer

/// Waits for the first element of `events` that `match` accepts, or `nil` after `seconds`.
func first<T: Sendable>(
    in events: AsyncStream<ClientEvent>, within seconds: Double, _ match: @escaping @Sendable (ClientEvent) -> T?
) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask {
            for await event in events { if let found = match(event) { return found } }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("example-embedded-check: FAILED: \(message)\n".utf8))
    exit(1)
}

// Port 0: any free port, so that tests can run side by side. The server logs only warnings and worse.
var logger = Logger(label: "example.server")
logger.logLevel = .warning
let server: EmbeddedServer
do {
    server = try await EmbeddedServer.start(ServerConfiguration(port: 0), logger: logger)
} catch {
    fail("\(error)")
}
let app = server.configuration.app
let client = PusherClient(
    options: PusherClientOptions(
        key: app.key, host: "127.0.0.1", port: server.port, connection: ConnectionConfiguration(useTLS: false),
        authorizer: SecretAuthorizer(key: app.key, secret: app.secret, userID: "checker")))

let events = client.events()
await client.connect()
do { try await client.subscribe("private-orders") } catch { fail("\(error)") }

let subscribed = await first(in: events, within: 10) { event -> String? in
    if case .subscribed(let channel, _) = event, channel == "private-orders" { return channel }
    if case .subscriptionError(_, _, let message) = event { return "error: \(message)" }
    return nil
}
guard subscribed == "private-orders" else { fail("not subscribed to private-orders (\(subscribed ?? "timed out"))") }

let published: JSONValue = ["id": 42, "item": "coffee"]
do {
    try await server.hub.publish(
        PublishRequest(channels: ["private-orders"], name: "order-created", data: published.jsonString))
} catch {
    fail("publish refused: \(error)")
}

let received = await first(in: events, within: 10) { event -> ChannelEvent? in
    if case .event(let e) = event, e.name == "order-created" { return e }
    return nil
}
guard let received else { fail("no order-created event within 10 s") }
guard received.channel == "private-orders", received.data == published else {
    fail("received \(received.channel) \(received.dataText ?? "nil"), expected private-orders \(published.jsonString)")
}
print("ok: private-orders order-created \(received.dataText ?? "")")

await client.shutdown()
await server.shutdown()
