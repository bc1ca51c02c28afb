import Foundation
import PusherChannels
import PusherProtocol
import PushtopTestSupport
import Testing

@testable import PushtopCLI

/// `pushtop proxy`, the real binary between real clients and a real `pushtop serve`: the relay, its console feed,
/// its faults and what clients did about them.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ProxyCommandTests {
    @Test func aSessionPassesThroughWithTheUpstreamsSocketIDAndTheHTTPAPI() async throws {
        try await ProxyNode.withProxy { node, proxy in
            let upstreamFeed = try ServeConsoleFeedReader(
                port: node.port,
                target: ServeConsoleFeedReader.target(appID: node.appID, key: node.key, secret: node.secret))
            defer { upstreamFeed.stop() }
            try await waitUntil("the server's feed") { upstreamFeed.hello != nil }

            let (socket, socketID) = try await TestSocket.subscribed(proxy.socketURL(), to: "news")
            // The socket id the client sees is the one the server gave.
            let seen = try await upstreamFeed.waitForRow("the server's connection row") { $0.type == .connection }
            #expect(seen.socketID == socketID)
            // The client's query reaches the server unchanged.
            #expect(seen.clientLibrary == "js" && seen.clientVersion == "8.6.0" && seen.protocolVersion == 7)

            // The HTTP API through the proxy: a publish reaches the subscriber, a query answers as the server does.
            let publish = try await proxy.signed(
                "POST", "/apps/\(node.appID)/events", body: #"{"name":"update","channel":"news","data":"{\"n\":1}"}"#)
            #expect(publish.status == 200, "\(publish.body)")
            let event = try await socket.next("update", channel: "news")
            #expect(event.dataText == #"{"n":1}"#)
            let channels = try await proxy.signed("GET", "/apps/\(node.appID)/channels")
            #expect(channels.status == 200 && channels.body.contains("news"), "\(channels.body)")
            // A bad signature is the server's to refuse, with its own answer.
            let refused = try await proxy.signed("GET", "/apps/\(node.appID)/channels", secret: "wrong")
            #expect(refused.status == 401)

            // Client events go upstream and come back to other subscribers.
            let (other, _) = try await TestSocket.established(proxy.socketURL())
            let auth = ChannelAuthSignature.auth(
                key: node.key, secret: node.secret, socketID: socketID, channel: "private-room")
            try await socket.subscribe("private-room", auth: auth)
            _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "private-room")
            let otherID =
                await other.all(PusherEventName.connectionEstablished).first?.dataJSON?["socket_id"]?
                .stringValue ?? ""
            let otherAuth = ChannelAuthSignature.auth(
                key: node.key, secret: node.secret, socketID: otherID, channel: "private-room")
            try await other.subscribe("private-room", auth: otherAuth)
            _ = try await other.next(PusherEventName.subscriptionSucceeded, channel: "private-room")
            try await socket.send(#"{"event":"client-typing","channel":"private-room","data":{"who":"a"}}"#)
            _ = try await other.next("client-typing", channel: "private-room")
            await other.close()
            await socket.close()
        }
    }

    @Test func theUpstreamsCloseCodeReachesTheClient() async throws {
        try await ProxyNode.withProxy { node, proxy in
            // An unknown key: the server says pusher:error 4001 and closes with 4001, through the proxy.
            let socket = try await TestSocket.connect(proxy.socketURL(key: "nobody"))
            let error = try await socket.next(PusherEventName.error)
            #expect(error.dataJSON?["code"]?.intValue == 4001)
            #expect(try await socket.waitForClose() == 4001)
        }
    }

    @Test func theConsoleFeedShowsAScriptedSessionRowByRow() async throws {
        try await ProxyNode.withProxy { node, proxy in
            // Without the secret there is no feed.
            let unsigned = try await proxy.raw("GET", "/apps/\(node.appID)/console")
            #expect(unsigned.status == 401)
            let wrong = try await proxy.signed("GET", "/apps/\(node.appID)/proxy/faults", secret: "wrong")
            #expect(wrong.status == 401)
            let feed = try await proxy.feed()
            defer { feed.stop() }
            #expect(feed.hello?["app_id"]?.stringValue == node.appID)

            let key = node.key, secret = node.secret
            let (alice, aliceID) = try await TestSocket.established(proxy.socketURL())
            let (bob, bobID) = try await TestSocket.established(proxy.socketURL(client: "pysher", version: "1.0.8"))
            try await alice.subscribe("news")
            _ = try await alice.next(PusherEventName.subscriptionSucceeded, channel: "news")
            for (socket, id) in [(alice, aliceID), (bob, bobID)] {
                let auth = ChannelAuthSignature.auth(key: key, secret: secret, socketID: id, channel: "private-room")
                try await socket.subscribe("private-room", auth: auth)
                _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "private-room")
            }
            let channelData = #"{"user_id":"alice","user_info":{"name":"Alice"}}"#
            let presenceAuth = ChannelAuthSignature.auth(
                key: key, secret: secret, socketID: aliceID, channel: "presence-lobby", channelData: channelData)
            try await alice.subscribe("presence-lobby", auth: presenceAuth, channelData: channelData)
            _ = try await alice.next(PusherEventName.subscriptionSucceeded, channel: "presence-lobby")
            let bobData = #"{"user_id":"bob"}"#
            let bobPresence = ChannelAuthSignature.auth(
                key: key, secret: secret, socketID: bobID, channel: "presence-lobby", channelData: bobData)
            try await bob.subscribe("presence-lobby", auth: bobPresence, channelData: bobData)
            _ = try await bob.next(PusherEventName.subscriptionSucceeded, channel: "presence-lobby")
            try await bob.subscribe("private-secret", auth: "\(key):0000")
            _ = try await bob.next(PusherEventName.subscriptionError, channel: "private-secret")
            try await alice.send(#"{"event":"client-typing","channel":"private-room","data":{"who":"alice"}}"#)
            _ = try await bob.next("client-typing", channel: "private-room")
            try await alice.send(#"{"event":"client-nope","channel":"news","data":{}}"#)
            _ = try await alice.next(PusherEventName.error)
            try await alice.send(#"{"event":"pusher:unsubscribe","data":{"channel":"news"}}"#)
            #expect(
                try await proxy.signed(
                    "POST", "/apps/\(node.appID)/events", body: #"{"name":"update","channels":["news"],"data":"hi"}"#
                ).status == 200)
            await alice.close()

            let connection = try await feed.waitForRow("alice's connection") {
                $0.type == .connection && $0.socketID == aliceID
            }
            #expect(connection.clientLibrary == "js" && connection.clientVersion == "8.6.0")
            #expect(connection.protocolVersion == 7 && connection.remoteAddress?.hasPrefix("127.0.0.1:") == true)
            let bobsConnection = try await feed.waitForRow("bob's connection") {
                $0.type == .connection && $0.socketID == bobID
            }
            #expect(bobsConnection.clientLibrary == "pysher" && bobsConnection.clientVersion == "1.0.8")
            try await feed.waitForRow("alice in news") {
                $0.type == .subscribed && $0.channel == "news" && $0.socketID == aliceID
            }
            try await feed.waitForRow("alice in presence-lobby as alice") {
                $0.type == .subscribed && $0.channel == "presence-lobby" && $0.userID == "alice"
            }
            let refused = try await feed.waitForRow("bob's refused subscription, from the server's reply") {
                $0.type == .error && $0.channel == "private-secret"
            }
            #expect(refused.socketID == bobID && refused.status != nil)
            let clientEvent = try await feed.waitForRow("the client event and where it went") {
                $0.type == .clientEvent && $0.event == "client-typing"
            }
            #expect(clientEvent.socketID == aliceID && clientEvent.channel == "private-room")
            #expect(clientEvent.deliveredTo == [bobID])
            let added = try await feed.waitForRow("bob's arrival, as alice saw it") {
                $0.type == .presenceEvent && $0.event == "member_added" && $0.userID == "bob"
            }
            #expect(added.deliveredTo == [aliceID])
            let error = try await feed.waitForRow("the server's pusher:error for the refused client event") {
                $0.type == .error && $0.socketID == aliceID && $0.rule == "pusher_error"
            }
            #expect(error.reason?.isEmpty == false, "\(error.jsonLine)")
            try await feed.waitForRow("alice left news") {
                $0.type == .unsubscribed && $0.channel == "news" && $0.socketID == aliceID
            }
            let message = try await feed.waitForRow("the publish passed through") { $0.type == .apiMessage }
            #expect(message.channel == "news" && message.event == "update" && message.data == "hi")
            let gone = try await feed.waitForRow("alice's disconnection") {
                $0.type == .disconnection && $0.socketID == aliceID
            }
            #expect(gone.closedBy == .client && gone.code == 1000)
            #expect(Set(gone.channels ?? []) == ["private-room", "presence-lobby"])
            #expect(gone.lifetimeMs != nil)
            let left = try await feed.waitForRow("alice's departure, as bob saw it") {
                $0.type == .presenceEvent && $0.event == "member_removed" && $0.userID == "alice"
            }
            #expect(left.deliveredTo == [bobID])
            // Occupancy as the proxy sees it: alice was alone in news; bob keeps private-room and presence-lobby.
            try await feed.waitForRow("news occupied") { $0.type == .occupied && $0.channel == "news" }
            try await feed.waitForRow("news vacated when alice left it") {
                $0.type == .vacated && $0.channel == "news"
            }
            let later = try await proxy.feed()
            defer { later.stop() }
            #expect(
                later.hello?["channels"] == .array([.string("presence-lobby"), .string("private-room")]),
                "\(later.hello?.jsonString ?? "-")")
            #expect(later.hello?["connections"]?.intValue == 1)
            #expect(!feed.rows.contains { $0.type == .vacated && $0.channel == "private-room" })
            await bob.close()
            try await feed.waitForRow("private-room vacated once bob is gone") {
                $0.type == .vacated && $0.channel == "private-room"
            }
        }
    }

    @Test func listeningBeyondLoopbackNeedsAllowRemote() async throws {
        let run = try await CommandRun.run(
            PushtopProcess.binary.path,
            ["proxy", "--listen", "0.0.0.0:0", "--upstream", "ws://127.0.0.1:1"], timeout: 30)
        #expect(run.status == 1)
        #expect(run.stderr.contains("--allow-remote"), "\(run.stderr)")
    }
}
