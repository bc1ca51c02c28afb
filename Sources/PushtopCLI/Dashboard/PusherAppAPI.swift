import PusherChannels
import PushtopDashboard

/// The dashboard's view of the app's HTTP API (channel browser, presence check), through `PusherAPIClient`.
struct PusherAppAPI: AppAPI {
    let client: PusherAPIClient

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func occupiedChannels() async throws -> [OccupiedChannel] {
        let all = try await client.channels(info: ["subscription_count"])
        guard (200..<300).contains(all.status), let list = all.json?["channels"]?.objectValue else {
            throw Failure(description: "GET /channels answered \(all.status): \(all.body.prefix(200))")
        }
        var channels: [String: OccupiedChannel] = [:]
        for (name, info) in list {
            channels[name] = OccupiedChannel(name: name, info: info)
        }
        // user_count is only allowed on presence channels (filter_by_prefix=presence-).
        if let presence = try? await client.channels(prefix: "presence-", info: ["user_count"]),
            let list = presence.json?["channels"]?.objectValue
        {
            for (name, info) in list {
                channels[name, default: OccupiedChannel(name: name, info: info)].userCount =
                    info["user_count"]?.intValue
            }
        }
        return Array(channels.values)
    }

    func presenceUserIDs(channel: String) async throws -> [String] {
        let response = try await client.users(in: channel)
        guard (200..<300).contains(response.status), let users = response.json?["users"]?.arrayValue else {
            throw Failure(description: "GET /channels/\(channel)/users answered \(response.status)")
        }
        return users.compactMap { $0["id"]?.stringValue }
    }
}

extension PusherAppAPI: CanaryPublisher {
    func publish(channel: String, event: String, data: String) async throws {
        let response = try await client.trigger(channels: [channel], event: event, data: data)
        guard (200..<300).contains(response.status) else {
            throw Failure(description: "POST /events answered \(response.status): \(response.body.prefix(200))")
        }
    }
}
