import Foundation
import PushtopServer
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// `pushtop watch --sign-in` against the embedded server: the exact lines a script reads.
@Suite(.timeLimit(.minutes(1))) struct WatchSignInTests {
    @Test func signsInLocallyPrintsUserEventsWatchlistAndSignsOutOnCommand() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let app = server.configuration.app
        let watch = try PushtopProcess([
            "watch", "--key", app.key, "--host", "127.0.0.1", "--port", String(server.port), "--no-tls",
            "--secret", app.secret, "--sign-in", "--user-id", "ann", "--watchlist", "bob", "--stdin",
        ])
        try await watch.waitForLine("signin") { $0["type"] as? String == "signin" }
        #expect(
            watch.lines.contains(#"{"type":"signin","user_id":"ann","user_data":{"id":"ann","watchlist":["bob"]}}"#))

        let api = PusherAPIClient(
            configuration: PusherAPIConfiguration(
                appID: app.id, key: app.key, secret: app.secret, port: server.port))
        try await waitUntil("ann's user channel") {
            await server.hub.channelSummary("#server-to-user-ann").subscriptionCount == 1
        }
        _ = try await api.sendToUser("ann", event: "ping-user", data: #"{"n":1}"#)
        try await watch.waitForLine("user_event") { $0["type"] as? String == "user_event" }
        #expect(watch.lines.contains(#"{"type":"user_event","user_id":"ann","event":"ping-user","data":{"n":1}}"#))

        let bob = PusherClient(
            options: PusherClientOptions(
                key: app.key, host: "127.0.0.1", port: server.port, connection: ConnectionConfiguration(useTLS: false),
                userAuthenticator: SecretUserAuthenticator(key: app.key, secret: app.secret, userID: "bob")))
        try await bob.signIn()
        await bob.connect()
        try await watch.waitForLine("bob online") { $0["type"] as? String == "watchlist" }
        #expect(watch.lines.contains(#"{"type":"watchlist","status":"online","user_ids":["bob"]}"#))
        await bob.shutdown()
        try await watch.waitForLine("bob offline") {
            $0["type"] as? String == "watchlist" && $0["status"] as? String == "offline"
        }

        watch.send(#"{"action":"signout"}"#)
        try await watch.waitForLine("signout") { $0["type"] as? String == "signout" }
        #expect(watch.lines.contains(#"{"type":"signout","user_id":"ann"}"#))
        watch.closeStdin()
        #expect(try await watch.exitCode() == 0)
        await server.shutdown()
    }

    @Test func signInWithoutAWayToSignIsAUsageError() async throws {
        try await PushtopProcess.expectUsageError(
            ["watch", "--key", "k", "--host", "127.0.0.1", "--no-tls", "--sign-in"],
            mentioning: "--sign-in needs --user-auth-endpoint")
    }
}
