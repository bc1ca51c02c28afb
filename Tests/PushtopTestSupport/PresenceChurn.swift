import Foundation
import PusherChannels

/// Members joining and leaving a presence channel through the given ports in turn, each staying a fraction of a
/// second (`users` ids reused, so the same user comes and goes): churn for the node tests. Cancel the task to stop.
public func presenceChurn(ports: [Int], key: String, secret: String, channel: String, users: Int = 5) -> Task<
    Void, Never
> {
    Task {
        var n = 0
        while !Task.isCancelled {
            n += 1
            let options = PusherClientOptions(
                key: key, host: "127.0.0.1", port: ports[n % ports.count],
                connection: ConnectionConfiguration(useTLS: false),
                authorizer: SecretAuthorizer(key: key, secret: secret, userID: "churn-\(n % users)"))
            let client = PusherClient(options: options)
            try? await client.subscribe(channel)
            await client.connect()
            try? await Task.sleep(for: .milliseconds(Int.random(in: 150...700)))
            await client.shutdown(closeTimeout: .milliseconds(200))
        }
    }
}
