import Foundation
import PusherProtocol
import PushtopConformance
import PushtopServer

extension DeviationSetups {
    typealias P = Rewrites

    /// A rewrite of presence subscriptions (channel, data, link).
    static func presenceSubscribe(_ f: @escaping @Sendable (String, JSONValue, ProxyLink) -> [Hop]?) -> DeviationSetup {
        rewrite(P.subscribe { channel, data, link in channel.hasPrefix("presence-") ? f(channel, data, link) : nil })
    }

    /// A rewrite of presence rosters (the subscriber's user id given).
    static func roster(_ f: @escaping @Sendable ([String: JSONValue], String, [String]) -> [String: JSONValue])
        -> DeviationSetup
    {
        var r = trackUsers()
        let inner = r.fromServer
        r.fromServer = { text, m, link in
            let hops = inner(text, m, link)
            guard let m, m.event == PusherEventName.subscriptionSucceeded, let channel = m.channel,
                channel.hasPrefix("presence-"), let roster = P.roster(m), let me = link.note("user:\(channel)")
            else { return hops }
            return [.client(P.withRoster(m, f(roster, me, P.members(link.hub, channel))))]
        }
        return DeviationSetup(rewrite: r)
    }

    /// Notes each presence subscription's user on its link, and keeps the members in the hub.
    static func trackUsers() -> ProxyRewrite {
        var r = P.subscribe { channel, data, link in
            if channel.hasPrefix("presence-"), let user = P.user(data) { link.setNote("user:\(channel)", user) }
            return nil
        }
        r.fromServer = { text, m, link in
            if let m, m.event == PusherEventName.subscriptionSucceeded, let channel = m.channel,
                let user = link.note("user:\(channel)")
            {
                _ = P.members(link.hub, channel) { $0.append("\(link.id):\(user)") }
            }
            return [.client(text)]
        }
        return r
    }

    static func dropMemberRemoved(flag: String) -> ProxyRewrite {
        P.server { m, _, link in
            guard m.event == PusherEventName.memberRemoved, let channel = m.channel,
                link.hub.shared("\(flag):\(channel)", { _ in }) != nil
            else { return nil }
            return []
        }
    }

    static let presence: [String: DeviationSetup] = [
        "presence-refused": presenceSubscribe { channel, _, _ in [.client(P.refusal(channel))] },
        "roster-without-hash": roster { roster, _, _ in roster.filter { $0.key != "hash" } },
        "roster-without-self": roster { roster, me, _ in
            var copy = roster
            copy["ids"] = .array((roster["ids"]?.arrayValue ?? []).filter { $0.stringValue != me })
            return copy
        },
        "roster-only-self": roster { roster, me, _ in
            [
                "ids": [.string(me)], "hash": .object([me: roster["hash"]?[me] ?? .null]),
                "count": roster["count"] ?? 1,
            ]
        },
        "user-info-numbers-as-strings": rewrite(
            P.server { m, _, _ in
                guard let channel = m.channel, channel.hasPrefix("presence-") else { return nil }
                if m.event == PusherEventName.subscriptionSucceeded, var roster = P.roster(m) {
                    roster["hash"] = roster["hash"].map(P.numbersAsStrings)
                    return [.client(P.withRoster(m, roster))]
                }
                if m.event == PusherEventName.memberAdded, case .object(var fields)? = m.dataJSON {
                    fields["user_info"] = fields["user_info"].map(P.numbersAsStrings)
                    return [.client(P.with(m, data: .object(fields)))]
                }
                return nil
            }),
        "presence-without-auth-accepted": presenceSubscribe { channel, data, link in
            data["auth"] == nil
                ? [.server(P.signedSubscribe(channel, link, channelData: data["channel_data"]?.stringValue))] : nil
        },
        "channel-data-defaulted": presenceSubscribe { channel, data, link in
            data["channel_data"] == nil
                ? [.server(P.signedSubscribe(channel, link, channelData: #"{"user_id":"anonymous-\#(link.id)"}"#))]
                : nil
        },
        "channel-data-unbound": presenceSubscribe { channel, data, link in
            guard let auth = data["auth"]?.stringValue, let channelData = data["channel_data"]?.stringValue else {
                return nil
            }
            let unbound = ChannelAuthSignature.auth(
                key: P.key, secret: P.secret, socketID: link.socketID ?? "", channel: channel)
            return auth == unbound ? [.server(P.signedSubscribe(channel, link, channelData: channelData))] : nil
        },
        "channel-data-not-json-wrapped": presenceSubscribe { channel, data, link in
            guard let channelData = data["channel_data"]?.stringValue, JSONValue.parseIfJSON(channelData) == nil else {
                return nil
            }
            let wrapped = JSONValue.object(["user_id": .string(String(channelData.prefix(100)))]).jsonString
            return [.server(P.signedSubscribe(channel, link, channelData: wrapped))]
        },
        "user-id-defaulted": presenceSubscribe { channel, data, link in
            guard let channelData = data["channel_data"]?.stringValue,
                case .object(var fields)? = JSONValue.parseIfJSON(channelData), fields["user_id"] == nil
            else { return nil }
            fields["user_id"] = .string("anonymous-\(link.id)")
            return [.server(P.signedSubscribe(channel, link, channelData: JSONValue.object(fields).jsonString))]
        },
        "no-member-added": rewrite(P.server { m, _, _ in m.event == PusherEventName.memberAdded ? [] : nil }),
        "member-added-to-self": DeviationSetup(
            rewrite: {
                var r = trackUsers()
                let inner = r.fromServer
                r.fromServer = { text, m, link in
                    guard let m, m.event == PusherEventName.subscriptionSucceeded, let channel = m.channel,
                        let me = link.note("user:\(channel)")
                    else { return inner(text, m, link) }
                    return inner(text, m, link) + [.client(P.memberEvent(PusherEventName.memberAdded, channel, me))]
                }
                return r
            }()),
        "no-member-removed-on-unsubscribe": DeviationSetup(
            rewrite: {
                var r = dropMemberRemoved(flag: "unsubscribed")
                r.fromClient = { text, m, link in
                    if let m, m.event == PusherEventName.unsubscribe, let channel = m.dataJSON?["channel"]?.stringValue
                    {
                        _ = link.hub.shared("unsubscribed:\(channel)") { $0 = "1" }
                    }
                    return [.server(text)]
                }
                return r
            }()),
        "no-member-removed-on-disconnect": DeviationSetup(
            rewrite: {
                var r = dropMemberRemoved(flag: "disconnected")
                r.fromClient = { text, m, link in
                    if let m, m.event == PusherEventName.unsubscribe, let channel = m.dataJSON?["channel"]?.stringValue
                    {
                        link.setNote("left:\(channel)", "1")
                    }
                    return [.server(text)]
                }
                r.ended = { link in
                    for channel in link.channels where link.note("left:\(channel)") == nil {
                        _ = link.hub.shared("disconnected:\(channel)") { $0 = "1" }
                    }
                    return []
                }
                return r
            }()),
        "member-events-per-connection": DeviationSetup(
            rewrite: {
                var r = trackUsers()
                let inner = r.fromServer
                r.fromServer = { text, m, link in
                    let hops = inner(text, m, link)
                    guard let m, m.event == PusherEventName.subscriptionSucceeded, let channel = m.channel,
                        let me = link.note("user:\(channel)")
                    else { return hops }
                    let others = P.members(link.hub, channel).filter {
                        $0.hasSuffix(":\(me)") && $0 != "\(link.id):\(me)"
                    }
                    return others.isEmpty
                        ? hops
                        : hops + [.others(channel: channel, P.memberEvent(PusherEventName.memberAdded, channel, me))]
                }
                return r
            }()),
        "member-removed-per-connection": DeviationSetup(
            rewrite: {
                var r = trackUsers()
                let subscribe = r.fromClient
                @Sendable func leave(_ link: ProxyLink, _ channel: String) -> [Hop] {
                    guard let me = link.note("user:\(channel)") else { return [] }
                    let left = P.members(link.hub, channel) { $0.removeAll { $0 == "\(link.id):\(me)" } }
                    return left.contains { $0.hasSuffix(":\(me)") }
                        ? [.others(channel: channel, P.memberEvent(PusherEventName.memberRemoved, channel, me))] : []
                }
                r.fromClient = { text, m, link in
                    if let m, m.event == PusherEventName.unsubscribe, let channel = m.dataJSON?["channel"]?.stringValue
                    {
                        return leave(link, channel) + [.server(text)]
                    }
                    return subscribe(text, m, link)
                }
                r.ended = { link in link.channels.flatMap { leave(link, $0) } }
                return r
            }()),
        "roster-counts-connections": roster { roster, _, members in
            var copy = roster
            copy["count"] = .number(Double(members.count))
            return copy
        },
        "rejoin-not-announced": rewrite(
            P.server { m, _, link in
                guard let channel = m.channel, let user = m.dataJSON?["user_id"]?.stringValue else { return nil }
                if m.event == PusherEventName.memberRemoved {
                    _ = link.hub.shared("gone:\(channel):\(user)") { $0 = "1" }
                    return nil
                }
                if m.event == PusherEventName.memberAdded, link.hub.shared("gone:\(channel):\(user)", { _ in }) != nil {
                    return []
                }
                return nil
            }),
        "drop-presence-events": rewrite(P.dropEvents { $0.hasPrefix("presence-") }),
        "user-info-limit-4kb": limits { $0.maxUserInfoBytes = 4096 },
        "user-id-limit-1000": limits { $0.maxUserIDLength = 1000 },
        "member-limit-200": DeviationSetup(configure: { $0.limits.maxPresenceMembers = 200 }, destructive: true),
    ]
}
