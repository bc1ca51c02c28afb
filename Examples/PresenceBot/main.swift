// A presence bot: joins a presence channel as "bot" and answers every client event it sees.
//
//   pushtop serve &                                    # a local server (app key pushtop-key)
//   swift run example-presence-bot presence-lobby      # then, from another terminal:
//   pushtop --host 127.0.0.1 --port 6001 --no-tls --key pushtop-key --secret pushtop-secret presence-lobby
//   (in the dashboard: `t` on presence-lobby, event `client-hello`, data {"text":"hi"})
//
// It signs its own subscription with the app secret (SecretAuthorizer), which is for development only: a
// real app's bot asks its backend (EndpointAuthorizer). Set PUSHER_HOST, PUSHER_PORT, PUSHER_APP_KEY,
// PUSHER_APP_SECRET to use another server.
import Foundation
import PusherChannels

let channel = CommandLine.arguments.dropFirst().first ?? "presence-lobby"
guard ChannelKind(channelName: channel) == .presence else {
    FileHandle.standardError.write(Data("usage: example-presence-bot presence-CHANNEL\n".utf8))
    exit(64)
}
let environment = ProcessInfo.processInfo.environment
let key = environment["PUSHER_APP_KEY"] ?? "pushtop-key"
let authorizer = SecretAuthorizer(
    key: key, secret: environment["PUSHER_APP_SECRET"] ?? "pushtop-secret",
    userID: "bot", userInfo: ["name": "Echo bot"])
let client = PusherClient(
    options: PusherClientOptions(
        key: key,
        host: environment["PUSHER_HOST"] ?? "127.0.0.1",
        port: Int(environment["PUSHER_PORT"] ?? "6001"),
        connection: ConnectionConfiguration(useTLS: environment["PUSHER_TLS"] == "1"),
        authorizer: authorizer))

let events = client.events()
await client.connect()
do {
    try await client.subscribe(channel)
} catch {
    FileHandle.standardError.write(Data("cannot subscribe to \(channel): \(error)\n".utf8))
    exit(1)
}

for await event in events {
    switch event {
    case .subscribed(let name, let presence?) where name == channel:
        let others = presence.members.filter { $0.userID != presence.me }.map(\.userID)
        print("joined \(name) with \(others.isEmpty ? "nobody else" : others.joined(separator: ", "))")
    case .memberAdded(_, let member):
        print("\(member.userID) joined")
        try? await client.trigger(channel: channel, event: "client-welcome", data: ["to": .string(member.userID)])
    case .memberRemoved(_, let member):
        print("\(member.userID) left")
    case .event(let received) where received.channel == channel && received.name.hasPrefix("client-"):
        // Client events are not echoed to their sender, and the server stamps user_id on presence channels.
        let sender = received.userID ?? "someone"
        print("\(sender) sent \(received.name) \(received.data?.jsonString ?? "")")
        do {
            try await client.trigger(
                channel: channel, event: "client-reply",
                data: ["to": .string(sender), "echo": received.data ?? .null])
        } catch {
            print("could not answer: \(error)")
        }
    case .subscriptionError(_, _, let message), .error(_, let message):
        print("error: \(message)")
    case .state(let change) where change.current == .failed:
        let reason = await client.failureReason ?? "unknown reason"
        print("connection failed: \(reason)")
        exit(1)
    default:
        break
    }
}
