import AsyncHTTPClient
import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Demo auth endpoint and simulator")
struct DemoAuthAndSimulatorTests {
    func authorize(_ server: EmbeddedServer, form: String) async throws -> (Int, JSONValue?) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/pusher/auth")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(Array(form.utf8))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        return (Int(response.status.code), JSONValue.parseIfJSON(text))
    }

    @Test func aTeammateJoinsPresenceWithANameAndNoSecret() async throws {
        try await withServer { server in
            let (socket, socketID) = try await TestSocket.established(server.url())
            let (status, body) = try await authorize(
                server, form: "socket_id=\(socketID)&channel_name=presence-lobby&name=Grace+Hopper")
            #expect(status == 200)
            let auth = try #require(body?["auth"]?.stringValue)
            let channelData = try #require(body?["channel_data"]?.stringValue)
            try await socket.subscribe("presence-lobby", auth: auth, channelData: channelData)
            let ok = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "presence-lobby")
            #expect(ok.dataJSON?["presence"]?["hash"]?["Grace Hopper"]?["name"] == "Grace Hopper")
            await socket.close()
        }
    }

    @Test func theAuthEndpointSignsEncryptedChannelsWithASharedSecretAndRefusesPublicOnes() async throws {
        try await withServer { server in
            let (status, body) = try await authorize(server, form: "socket_id=1.2&channel_name=private-encrypted-vault")
            #expect(status == 200)
            let secret = try #require(body?["shared_secret"]?.stringValue)
            let expected = ChannelAuthSignature.sharedSecret(
                channel: "private-encrypted-vault", masterKey: server.configuration.app.encryptionMasterKey)
            #expect(Data(base64Encoded: secret).map(Array.init) == expected)
            #expect(try await authorize(server, form: "socket_id=1.2&channel_name=public").0 == 400)
            #expect(try await authorize(server, form: "socket_id=x&channel_name=private-a").0 == 400)
        }
    }

    @Test func theAuthEndpointCanBeTurnedOff() async throws {
        try await withServer({ $0.demoAuthEndpoint = false }) { server in
            let (status, _) = try await authorize(server, form: "socket_id=1.2&channel_name=private-a")
            #expect(status == 404)
        }
    }

    @Test func simulatorFillsTheLobbyAndPublishesTickerChatAndEncryptedEvents() async throws {
        try await withServer({ config in
            config.simulate = true
            config.simulator.tickInterval = 0.02
            config.simulator.chatInterval = 0.05
            config.simulator.encryptedInterval = 0.05
            config.simulator.membershipInterval = 0.05
        }) { server in
            let (socket, socketID) = try await TestSocket.established(server.url())
            let data = "{\"user_id\":\"me\"}"
            try await socket.subscribe(
                "presence-lobby", auth: server.auth(socketID: socketID, channel: "presence-lobby", channelData: data),
                channelData: data)
            let ok = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "presence-lobby")
            #expect((ok.dataJSON?["presence"]?["count"]?.intValue ?? 0) >= 2)
            try await socket.subscribe("ticker")
            try await socket.subscribe("chat")
            let vault = "private-encrypted-vault"
            try await socket.subscribe(vault, auth: server.auth(socketID: socketID, channel: vault))
            let tick = try await socket.next("price-update", channel: "ticker")
            #expect(tick.dataJSON?["price"]?.numberValue != nil)
            _ = try await socket.next("message", channel: "chat")
            let secret = try await socket.next("secret", channel: vault)
            let payload = try #require(secret.dataJSON)
            let key = ChannelAuthSignature.sharedSecret(
                channel: vault, masterKey: server.configuration.app.encryptionMasterKey)
            let plaintext = ServerSecretBox.openFromPusher(
                ciphertext: Array(Data(base64Encoded: payload["ciphertext"]?.stringValue ?? "") ?? Data()),
                nonce: Array(Data(base64Encoded: payload["nonce"]?.stringValue ?? "") ?? Data()), key: key)
            #expect(plaintext?.contains("vault code") == true)
            _ = try await socket.next(PusherEventName.memberAdded, channel: "presence-lobby", timeout: 5)
            await socket.close()
        }
    }
}
