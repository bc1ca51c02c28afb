import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Client events")
struct ClientEventTests {
    /// Two sockets on `channel`, both subscribed; presence channels join as `alice` and `bob`.
    func pair(_ server: EmbeddedServer, _ channel: String) async throws -> (TestSocket, TestSocket) {
        var sockets: [TestSocket] = []
        for user in ["alice", "bob"] {
            let (socket, socketID) = try await TestSocket.established(server.url())
            if channel.hasPrefix("presence-") {
                let data = "{\"user_id\":\"\(user)\"}"
                try await socket.subscribe(
                    channel, auth: server.auth(socketID: socketID, channel: channel, channelData: data),
                    channelData: data)
            } else if channel.hasPrefix("private-") {
                try await socket.subscribe(channel, auth: server.auth(socketID: socketID, channel: channel))
            } else {
                try await socket.subscribe(channel)
            }
            _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: channel)
            sockets.append(socket)
        }
        return (sockets[0], sockets[1])
    }

    /// Runs `body` with a server and the `pair` of sockets on `channel`, and closes both sockets after.
    func withPair(_ channel: String, _ body: (EmbeddedServer, TestSocket, TestSocket) async throws -> Void)
        async throws
    {
        try await withServer { server in
            let (alice, bob) = try await pair(server, channel)
            try await runAndCleanUp(
                { try await body(server, alice, bob) },
                finally: {
                    await alice.close()
                    await bob.close()
                })
        }
    }

    @Test func clientEventReachesOthersButNotTheSender() async throws {
        try await withPair("private-room") { _, alice, bob in
            try await alice.send("{\"event\":\"client-typing\",\"channel\":\"private-room\",\"data\":{\"on\":true}}")
            let event = try await bob.next("client-typing", channel: "private-room")
            // Object data from the client is delivered as a JSON string, like every server message.
            #expect(event.data == .string("{\"on\":true}"))
            #expect(event.userID == nil)
            try await alice.roundTrip()
            #expect(await alice.all("client-typing").isEmpty)
        }
    }

    @Test func clientEventsOnPresenceCarryTheSendersUserID() async throws {
        try await withPair("presence-room") { _, alice, bob in
            try await bob.send("{\"event\":\"client-wave\",\"channel\":\"presence-room\",\"data\":\"hi\"}")
            let event = try await alice.next("client-wave", channel: "presence-room")
            #expect(event.userID == "bob")
            #expect(event.data == .string("hi"))
        }
    }

    @Test func clientEventsAreRefusedOnPublicChannelsAndUnsubscribedChannels() async throws {
        try await withPair("lobby") { _, alice, bob in
            try await alice.send("{\"event\":\"client-x\",\"channel\":\"lobby\",\"data\":{}}")
            try await alice.nextError(containing: "private and presence")
            try await alice.send("{\"event\":\"client-x\",\"channel\":\"private-elsewhere\",\"data\":{}}")
            try await alice.nextError(containing: "not subscribed")
            #expect(await bob.all("client-x").isEmpty)
        }
    }

    @Test func clientEventsAreRateLimitedWith4301() async throws {
        try await withPair("private-fast") { server, alice, bob in
            for i in 0..<15 {
                try await alice.send("{\"event\":\"client-n\",\"channel\":\"private-fast\",\"data\":{\"i\":\(i)}}")
            }
            let error = try await alice.next(PusherEventName.error)
            #expect(error.data?["code"]?.intValue == 4301)
            // A ping after the burst: its pong means the hub has handled all fifteen, and an event published after
            // that reaches Bob after every client event the hub let through.
            try await alice.roundTrip()
            try await server.hub.publish(PublishRequest(channels: ["private-fast"], name: "after-burst", data: "{}"))
            _ = try await bob.next("after-burst", channel: "private-fast")
            #expect(await bob.all("client-n").count >= 10)
            #expect(await bob.all("client-n").count <= 11)
            #expect(await alice.finished == false)
        }
    }

    @Test func clientEventDataOver10KBIsRefused() async throws {
        try await withPair("private-big") { _, alice, bob in
            let big = String(repeating: "a", count: 10_300)
            try await alice.send("{\"event\":\"client-big\",\"channel\":\"private-big\",\"data\":\"\(big)\"}")
            try await alice.nextError(containing: "10240")
            #expect(await bob.all("client-big").isEmpty)
        }
    }
}
