import Foundation
import PushtopServer
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// `pushtop watch` and the client library against the real embedded server, published to through the HTTP API.
@Suite(.timeLimit(.minutes(1))) struct WatchAgainstEmbeddedServerTests {
    @Test func watchSeesEventsPresenceAndClientEventsFromTheEmbeddedServer() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let port = server.port
        let app = server.configuration.app
        let watch = try PushtopProcess([
            "watch", "--key", app.key, "--host", "127.0.0.1", "--port", String(port), "--no-tls",
            "--auth-endpoint", server.authEndpointURL!, "--user-id", "watcher", "--stdin",
            "ticker", "presence-room",
        ])
        try await watch.waitForLine("presence subscribed") {
            $0["type"] as? String == "subscribed" && $0["channel"] as? String == "presence-room"
        }
        try await watch.waitForLine("ticker subscribed") {
            $0["type"] as? String == "subscribed" && $0["channel"] as? String == "ticker"
        }

        // An HTTP API publish reaches watch.
        let api = PusherAPIClient(
            configuration: PusherAPIConfiguration(appID: app.id, key: app.key, secret: app.secret, port: port))
        let response = try await api.trigger(channels: ["ticker"], event: "price", data: #"{"p":2}"#)
        #expect(response.status == 200)
        try await watch.waitForLine("event") { $0["type"] as? String == "event" && $0["event"] as? String == "price" }

        // A library client joins the presence channel and sends a client event: watch sees both.
        let client = PusherClient(
            options: PusherClientOptions(
                key: app.key, host: "127.0.0.1", port: port, connection: ConnectionConfiguration(useTLS: false),
                authorizer: EndpointAuthorizer(url: server.authEndpointURL!, parameters: [("user_id", "alice")])))
        let recorder = EventRecorder(client)
        try await client.subscribe("presence-room")
        await client.connect()
        try await recorder.wait {
            if case .subscribed(let c, _) = $0 { return c == "presence-room" } else { return false }
        }
        try await watch.waitForLine("alice joined") {
            $0["type"] as? String == "member_added" && $0["user_id"] as? String == "alice"
        }
        try await client.trigger(channel: "presence-room", event: "client-wave", data: ["hi": true])
        let wave = try await watch.waitForLine("client event") { $0["event"] as? String == "client-wave" }
        #expect(wave["user_id"] as? String == "alice")
        #expect((wave["data"] as? [String: Any])?["hi"] as? Bool == true)

        // watch's own client event reaches the library client, with watch's user id.
        watch.send(#"{"action":"trigger","channel":"presence-room","event":"client-hello","data":{"n":1}}"#)
        let hello = try await recorder.wait {
            if case .event(let e) = $0 { return e.name == "client-hello" } else { return false }
        }
        if case .event(let e) = hello { #expect(e.userID == "watcher") }

        await client.disconnect()
        try await watch.waitForLine("alice left") {
            $0["type"] as? String == "member_removed" && $0["user_id"] as? String == "alice"
        }
        watch.closeStdin()
        #expect(try await watch.exitCode() == 0)
        await server.shutdown()
    }

    @Test func unknownKeyOnTheEmbeddedServerExitsOne() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let watch = try PushtopProcess([
            "watch", "--key", "wrong-key", "--host", "127.0.0.1", "--port", String(server.port), "--no-tls", "c",
        ])
        #expect(try await watch.exitCode(timeout: 30) == 1)
        #expect(watch.stderr.contains("4001"))
        await server.shutdown()
    }
}
