import Foundation
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

/// `pusher:signin`, events to users, watchlists and terminating a user's connections, over real sockets.
@Suite("Users")
struct UserSignInTests {
    /// Signs a socket in with `user_data` as the server SDKs' `authenticate_user` would.
    static func signIn(
        _ socket: TestSocket, socketID: String, userData: String, server: EmbeddedServer,
        secret: String? = nil
    ) async throws {
        let auth = UserAuthSignature.auth(
            key: server.configuration.app.key,
            secret: secret ?? server.configuration.app.secret, socketID: socketID,
            userData: userData)
        try await socket.send(
            PusherMessage(
                event: PusherEventName.signin,
                data: ["auth": .string(auth), "user_data": .string(userData)]))
    }

    /// A new connection to the server that has sent its `pusher:signin` with `userData` (not yet answered).
    static func connectAndSignIn(_ server: EmbeddedServer, userData: String) async throws -> TestSocket {
        let (socket, socketID) = try await TestSocket.established(server.url())
        try await signIn(socket, socketID: socketID, userData: userData, server: server)
        return socket
    }

    /// The changes in the next `pusher:watchlist_events` that `socket` receives.
    static func nextWatchlistChanges(_ socket: TestSocket) async throws -> [WatchlistChange] {
        WatchlistChange.changes(fromWatchlistData: try await socket.next(PusherEventName.watchlistEvents).dataJSON)
    }

    @Test func signInSucceedsAndUserEventsArriveOnTheUsersChannel() async throws {
        try await withServer { server in
            let (socket, socketID) = try await TestSocket.established(server.url())
            let userData = #"{"id":"alice","user_info":{"name":"Alice"}}"#
            try await Self.signIn(socket, socketID: socketID, userData: userData, server: server)
            let success = try await socket.next(PusherEventName.signinSuccess)
            #expect(success.dataJSON?["user_data"]?.stringValue == userData)
            try await socket.subscribe("#server-to-user-alice")
            _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "#server-to-user-alice")

            _ = try await server.api.sendToUser("alice", event: "notice", data: #"{"n":1}"#)
            let event = try await socket.next("notice", channel: "#server-to-user-alice")
            #expect(event.dataText == #"{"n":1}"#)
            // A user's own channel is not listed among the app's channels.
            let list = try await server.api.channels()
            #expect(list.json?["channels"]?.objectValue?.isEmpty == true)
            await socket.close()
        }
    }

    @Test func aBadSignatureIsRefusedWith4009AndTheConnectionCloses() async throws {
        try await withServer { server in
            let (socket, socketID) = try await TestSocket.established(server.url())
            try await Self.signIn(
                socket, socketID: socketID, userData: #"{"id":"mallory"}"#, server: server,
                secret: "wrong-secret")
            let error = try await socket.next(PusherEventName.error)
            #expect(error.dataJSON?["code"]?.intValue == 4009)
            #expect(error.dataJSON?["message"]?.stringValue?.contains("invalid signature") == true)
            #expect(try await socket.waitForClose() == 4009)
            #expect(await server.hub.signedInUsers().isEmpty)
        }
    }

    @Test func userDataWithoutAnIDIsRefused() async throws {
        try await withServer { server in
            let (socket, socketID) = try await TestSocket.established(server.url())
            try await Self.signIn(socket, socketID: socketID, userData: #"{"name":"no id"}"#, server: server)
            let error = try await socket.next(PusherEventName.error)
            #expect(error.dataJSON?["message"]?.stringValue?.contains("\"id\"") == true)
            #expect(try await socket.waitForClose() == 4009)
        }
    }

    @Test func anotherUsersChannelCannotBeSubscribed() async throws {
        try await withServer { server in
            let (socket, socketID) = try await TestSocket.established(server.url())
            try await socket.subscribe("#server-to-user-bob")
            let refused = try await socket.next(PusherEventName.subscriptionError, channel: "#server-to-user-bob")
            #expect(refused.dataJSON?["status"]?.intValue == 403)
            try await Self.signIn(socket, socketID: socketID, userData: #"{"id":"alice"}"#, server: server)
            _ = try await socket.next(PusherEventName.signinSuccess)
            try await socket.subscribe("#server-to-user-bob")
            let again = try await socket.next(PusherEventName.subscriptionError, channel: "#server-to-user-bob")
            #expect(again.dataJSON?["error"]?.stringValue?.contains("signed in as alice") == true)
            await socket.close()
        }
    }

    @Test func watchersHearOnlineAndOfflineOfWatchedUsers() async throws {
        try await withServer { server in
            let carol = try await Self.connectAndSignIn(
                server, userData: #"{"id":"carol","watchlist":["dave","erin"]}"#)
            _ = try await carol.next(PusherEventName.signinSuccess)

            // dave signs in twice: one online event; offline only when his last connection leaves.
            let dave1 = try await Self.connectAndSignIn(server, userData: #"{"id":"dave"}"#)
            #expect(try await Self.nextWatchlistChanges(carol) == [WatchlistChange(status: .online, userIDs: ["dave"])])
            let dave2 = try await Self.connectAndSignIn(server, userData: #"{"id":"dave"}"#)
            _ = try await dave2.next(PusherEventName.signinSuccess)
            await dave1.close()
            try await waitUntil("dave's first connection to leave") { await server.hub.connectionCount == 2 }
            #expect(await carol.all(PusherEventName.watchlistEvents).count == 1)
            await dave2.close()
            #expect(
                try await Self.nextWatchlistChanges(carol) == [WatchlistChange(status: .offline, userIDs: ["dave"])])

            // A watcher signing in later hears at once who of its watchlist is online.
            let erin = try await Self.connectAndSignIn(server, userData: #"{"id":"erin"}"#)
            _ = try await carol.next(PusherEventName.watchlistEvents)
            let frank = try await Self.connectAndSignIn(
                server, userData: #"{"id":"frank","watchlist":["carol","erin","x"]}"#)
            #expect(
                try await Self.nextWatchlistChanges(frank) == [
                    WatchlistChange(status: .online, userIDs: ["carol", "erin"])
                ])
            for socket in [carol, erin, frank] { await socket.close() }
        }
    }

    @Test func terminateConnectionsClosesEveryConnectionOfTheUser() async throws {
        try await withServer { server in
            let (a, aID) = try await TestSocket.established(server.url())
            let (b, bID) = try await TestSocket.established(server.url())
            let (other, otherID) = try await TestSocket.established(server.url())
            try await Self.signIn(a, socketID: aID, userData: #"{"id":"gina"}"#, server: server)
            try await Self.signIn(b, socketID: bID, userData: #"{"id":"gina"}"#, server: server)
            try await Self.signIn(other, socketID: otherID, userData: #"{"id":"hank"}"#, server: server)
            for socket in [a, b, other] { _ = try await socket.next(PusherEventName.signinSuccess) }
            let response = try await server.api.terminateUserConnections("gina")
            #expect(response.body == "{}")
            #expect(try await a.waitForClose() == 4009)
            #expect(try await b.waitForClose() == 4009)
            #expect(await server.hub.signedInUsers() == ["hank"])
            #expect(await other.finished == false)
            await other.close()
        }
    }

    @Test func theDevelopmentUserAuthEndpointSignsAUserTheServerAccepts() async throws {
        try await withServer { server in
            let (socket, socketID) = try await TestSocket.established(server.url())
            let endpoint = EndpointUserAuthenticator(
                url: try #require(server.userAuthEndpointURL),
                parameters: [("user_id", "ivy"), ("user_info", #"{"name":"Ivy"}"#), ("watchlist", "jack,kim")])
            let authentication = try await endpoint.authenticate(socketID: socketID)
            let user = try SignedInUser(userData: authentication.userData)
            #expect(user.id == "ivy")
            #expect(user.watchlist == ["jack", "kim"])
            try await socket.send(
                PusherMessage(
                    event: PusherEventName.signin,
                    data: [
                        "auth": .string(authentication.auth), "user_data": .string(authentication.userData),
                    ]))
            _ = try await socket.next(PusherEventName.signinSuccess)
            await socket.close()
        }
    }

    @Test func noAuthEndpointTurnsTheUserAuthEndpointOff() async throws {
        try await withServer({ $0.demoAuthEndpoint = false }) { server in
            #expect(server.userAuthEndpointURL == nil)
            let endpoint = EndpointUserAuthenticator(url: "\(server.httpURL)/pusher/user-auth")
            await #expect(throws: AuthError.self) { _ = try await endpoint.authenticate(socketID: "1.2") }
        }
    }
}
