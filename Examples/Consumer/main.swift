// A command-line consumer: connects to a Pusher-protocol app and prints every event of the channels named.
//
//   swift run example-consumer KEY CHANNEL...
//   PUSHER_HOST=127.0.0.1 PUSHER_PORT=6001 PUSHER_TLS=0 swift run example-consumer pushtop-key ticker chat
//
// PUSHER_CLUSTER picks a Pusher cluster (default mt1); PUSHER_HOST/PUSHER_PORT/PUSHER_TLS point it at
// soketi, Reverb or `pushtop serve`. Public channels only: see PresenceBot for authorized ones.
import Foundation
import PusherChannels

let arguments = CommandLine.arguments.dropFirst()
guard let key = arguments.first, arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: example-consumer KEY CHANNEL...\n".utf8))
    exit(64)
}
let environment = ProcessInfo.processInfo.environment
let options = PusherClientOptions(
    key: key,
    cluster: environment["PUSHER_CLUSTER"] ?? "mt1",
    host: environment["PUSHER_HOST"],
    port: environment["PUSHER_PORT"].flatMap { Int($0) },
    connection: ConnectionConfiguration(useTLS: environment["PUSHER_TLS"] != "0"))
let client = PusherClient(options: options)

// Take the stream before connecting, so that no event is missed.
let events = client.events()
await client.connect()
for channel in arguments.dropFirst() {
    do { try await client.subscribe(channel) } catch { print("cannot subscribe to \(channel): \(error)") }
}

for await event in events {
    switch event {
    case .state(let change): print("state: \(change.previous) -> \(change.current)")
    case .subscribed(let channel, _): print("subscribed: \(channel)")
    case .subscriptionError(let channel, _, let message): print("cannot subscribe to \(channel): \(message)")
    case .event(let event): print("\(event.channel) \(event.name) \(event.data?.jsonString ?? "")")
    case .error(let code, let message): print("error \(code.map(String.init) ?? "-"): \(message)")
    default: break
    }
}
