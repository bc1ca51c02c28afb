import PusherProtocol

/// A simulated person on the presence channel: an in-process client of the hub that connects, subscribes with
/// a properly signed presence auth (as an app's auth endpoint would sign it), answers pings, and leaves.
struct SimulatedMember {
    let name: String
    let connection: HubConnection
    let drain: Task<Void, Never>

    /// Connects to the hub and joins `channel` as `name`.
    static func join(name: String, channel: String, hub: PusherHub, app: AppCredentials) async -> SimulatedMember? {
        let connection = await hub.open(appKey: app.key, protocolVersion: "7")
        guard let socketID = connection.socketID else { return nil }
        let id = connection.id
        // Read everything sent to the member, answering the server's pings so it is never closed as silent.
        let drain = Task {
            for await frame in connection.frames {
                if let text = frame.text, text.hasPrefix("{\"event\":\"pusher:ping\"") {
                    await hub.receive("{\"event\":\"pusher:pong\",\"data\":{}}", from: id)
                }
            }
        }
        let info: JSONValue = ["name": .string(name), "simulated": true]
        let channelData = JSONValue.object(["user_id": .string(name.lowercased()), "user_info": info]).jsonString
        let auth = ChannelAuthSignature.auth(
            key: app.key, secret: app.secret, socketID: socketID, channel: channel, channelData: channelData)
        let subscribe = PusherMessage(
            event: PusherEventName.subscribe,
            data: ["channel": .string(channel), "auth": .string(auth), "channel_data": .string(channelData)])
        await hub.receive(subscribe.jsonString, from: id)
        return SimulatedMember(name: name, connection: connection, drain: drain)
    }

    /// Leaves: the hub announces `member_removed` to the others.
    func leave(hub: PusherHub) async {
        await hub.disconnect(connection.id)
        drain.cancel()
    }
}
