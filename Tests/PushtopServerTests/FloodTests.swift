import Foundation
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

/// Many raw clients join presence channels and drop without a close handshake (RST and FIN, while the server is
/// writing to them): the hub must forget every one of them at once. `PUSHTOP_FLOOD_CONNECTIONS` raises the
/// count (CI runs a few hundred).
@Suite("Floods")
struct FloodTests {
    static let connections = ProcessInfo.processInfo.environment["PUSHTOP_FLOOD_CONNECTIONS"].flatMap(Int.init) ?? 200
    /// Members per presence channel: with the observer, under Pusher's limit of 100, so that a channel still
    /// holding the dropped members of a first wave refuses (403) a second wave.
    static let membersPerChannel = 90

    /// Opens a raw WebSocket, joins a presence channel as `userID` and subscribes to `publicChannel`.
    static func join(port: Int, app: AppCredentials, channel: String, userID: String, publicChannel: String) throws
        -> RawSocket
    {
        let socket = try RawSocket.webSocket(port: port, path: "/app/\(app.key)?protocol=7")
        let established = try PusherMessage(decoding: socket.readEvent(PusherEventName.connectionEstablished))
        let socketID = established.dataJSON?["socket_id"]?.stringValue ?? ""
        let channelData = "{\"user_id\":\"\(userID)\"}"
        let auth = ChannelAuthSignature.auth(
            key: app.key, secret: app.secret, socketID: socketID, channel: channel, channelData: channelData)
        let subscribe = PusherMessage(
            event: PusherEventName.subscribe,
            data: [
                "channel": .string(channel), "auth": .string(auth), "channel_data": .string(channelData),
            ])
        try socket.sendText(subscribe.jsonString)
        let answer = try PusherMessage(decoding: socket.readEventOrError(PusherEventName.subscriptionSucceeded))
        guard answer.event == PusherEventName.subscriptionSucceeded else {
            throw RawSocket.Failure(description: "\(userID) could not join \(channel): \(answer.jsonString)")
        }
        try socket.sendText(
            PusherMessage(event: PusherEventName.subscribe, data: ["channel": .string(publicChannel)]).jsonString)
        _ = try socket.readEvent(PusherEventName.subscriptionSucceeded)
        return socket
    }

    static func joinAll(port: Int, app: AppCredentials, wave: String) async throws -> [RawSocket] {
        try await offloaded {
            try (0..<connections).map { i in
                try join(
                    port: port, app: app, channel: "presence-flood-\(i / membersPerChannel)", userID: "\(wave)-\(i)",
                    publicChannel: "flood-news")
            }
        }
    }

    static var channelNames: [String] {
        (0...(connections - 1) / membersPerChannel).map { "presence-flood-\($0)" }
    }

    @Test func droppedConnectionsLeaveAtOnceWithRSTAndWithFIN() async throws {
        try await withServer { server in
            let app = server.configuration.app
            let (observer, observerSocketID) = try await TestSocket.established(server.url())
            let observerData = "{\"user_id\":\"observer\"}"
            try await observer.subscribe(
                "presence-flood-0",
                auth: server.auth(socketID: observerSocketID, channel: "presence-flood-0", channelData: observerData),
                channelData: observerData)
            try await observer.subscribe("flood-news")
            _ = try await observer.next(PusherEventName.subscriptionSucceeded, channel: "flood-news")

            var sockets = try await Self.joinAll(port: server.port, app: app, wave: "first")
            #expect(await server.hub.channelSummary("flood-news").subscriptionCount == Self.connections + 1)

            // The server keeps writing to the public channel while the clients drop: half RST, half FIN.
            let publisher = Task {
                var i = 0
                while !Task.isCancelled {
                    i += 1
                    _ = try? await server.hub.publish(
                        PublishRequest(channels: ["flood-news"], name: "tick", data: "\(i)"))
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
            let dropping = sockets
            sockets = []
            try await offloaded {
                for (i, socket) in dropping.enumerated() {
                    if i.isMultiple(of: 2) { socket.abort() } else { socket.close() }
                }
            }

            try await waitUntil(timeout: 10, "every dropped member to leave") {
                for name in Self.channelNames {
                    let expected = name == "presence-flood-0" ? ["observer"] : []
                    guard await server.hub.users(in: name) == expected else { return false }
                }
                return await server.hub.channelSummary("flood-news").subscriptionCount == 1
            }
            publisher.cancel()
            // The HTTP API says the same, and the observer heard every departure.
            let users = try await server.api.users(in: "presence-flood-1")
            #expect(users.json?["users"]?.arrayValue?.isEmpty == true)
            let departures = min(Self.membersPerChannel, Self.connections)
            try await waitUntil(timeout: 10, "the observer to hear every departure") {
                await observer.all(PusherEventName.memberRemoved, channel: "presence-flood-0").count >= departures
            }
            let removed = Set(
                await observer.all(PusherEventName.memberRemoved, channel: "presence-flood-0")
                    .compactMap { $0.dataJSON?["user_id"]?.stringValue })
            #expect(removed.count == departures)
            #expect(await server.hub.connectionCount == 1)

            // A second wave fills the same channels: no place is held by a ghost.
            let second = try await Self.joinAll(port: server.port, app: app, wave: "second")
            #expect(
                await server.hub.users(in: "presence-flood-1").count
                    == min(Self.membersPerChannel, Self.connections - Self.membersPerChannel))
            try await offloaded { for socket in second { socket.close() } }
            await observer.close()
        }
    }
}

extension RawSocket {
    /// Reads until `event`, or a `pusher:subscription_error`/`pusher:error` (returned too).
    func readEventOrError(_ name: String) throws -> String {
        while true {
            let frame = try readFrame()
            if frame.opcode == 0x8 {
                throw Failure(description: "closed with \(frame.closeCode ?? 0) waiting for \(name)")
            }
            guard frame.opcode == 0x1 else { continue }
            let text = frame.text
            if text.contains("\"event\":\"\(name)\"") || text.contains("\"event\":\"pusher:subscription_error\"") {
                return text
            }
        }
    }
}
