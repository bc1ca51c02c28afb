import Foundation
import HummingbirdWebSocket
import PusherProtocol
import PushtopConformance
import PushtopServer

extension DeviationSetups {
    typealias F = Rewrites

    static func isUserChannel(_ channel: String) -> Bool { channel.hasPrefix(PusherEventName.serverToUserPrefix) }

    /// Drops the app's events on cache channels of `kind` that come within 0.3 s of subscribing (the replay).
    static func noReplay(_ kind: String) -> DeviationSetup {
        rewrite(
            F.server { m, _, link in
                guard let channel = m.channel, channel.hasPrefix(kind) else { return nil }
                if m.event == PusherEventName.subscriptionSucceeded {
                    link.setNote("subscribed:\(channel)", String(F.now()))
                    return nil
                }
                guard F.isAppEvent(m), let at = link.note("subscribed:\(channel)").flatMap(Double.init),
                    F.now() - at < 0.3
                else { return nil }
                return []
            })
    }

    static func watchlist(_ drop: @escaping @Sendable (String, ProxyLink) -> Bool) -> DeviationSetup {
        rewrite(
            F.server { m, text, link in
                m.event == PusherEventName.watchlistEvents && drop(text, link) ? [] : nil
            })
    }

    static func subscriptionCount(_ f: @escaping @Sendable (Int) -> Int?) -> DeviationSetup {
        rewrite(
            F.server { m, _, _ in
                guard m.event == PusherEventName.subscriptionCount,
                    let count = m.dataJSON?["subscription_count"]?.intValue
                else { return nil }
                guard let changed = f(count) else { return [] }
                return [.client(F.with(m, data: ["subscription_count": .number(Double(changed))]))]
            })
    }

    static func signin(_ f: @escaping @Sendable (String, ProxyLink) -> String?) -> DeviationSetup {
        rewrite(
            F.client { m, _, link in
                guard m.event == PusherEventName.signin, let userData = m.dataJSON?["user_data"]?.stringValue,
                    let changed = f(userData, link)
                else { return nil }
                let auth = UserAuthSignature.auth(
                    key: F.key, secret: F.secret, socketID: link.socketID ?? "", userData: changed)
                return [
                    .server(
                        PusherMessage(
                            event: PusherEventName.signin,
                            data: .object(["auth": .string(auth), "user_data": .string(changed)])
                        ).jsonString)
                ]
            })
    }

    static let features: [String: DeviationSetup] = [
        "encrypted-unanswered": rewrite(
            F.subscribe { channel, _, _ in channel.hasPrefix("private-encrypted-") ? [] : nil }),
        "encrypted-without-auth-accepted": rewrite(
            F.subscribe { channel, _, link in
                channel.hasPrefix("private-encrypted-") ? [.server(F.signedSubscribe(channel, link))] : nil
            }),
        "ciphertext-altered": rewrite(
            F.server { m, _, _ in
                guard F.isAppEvent(m), (m.channel ?? "").hasPrefix("private-encrypted-"),
                    case .object(var fields)? = m.dataJSON, let text = fields["ciphertext"]?.stringValue,
                    let first = text.first
                else { return nil }
                fields["ciphertext"] = .string((first == "A" ? "B" : "A") + text.dropFirst())
                return [.client(F.with(m, data: .object(fields)))]
            }),
        "encrypted-client-events": clientEvent { m, text, _ in
            guard let channel = m.channel, channel.hasPrefix("private-encrypted-") else { return nil }
            return [.others(channel: channel, text)]
        },
        "signin-user-data-dropped": rewrite(
            F.server { m, _, _ in
                m.event == PusherEventName.signinSuccess
                    ? [.client(PusherMessage(event: m.event, data: .string("{}")).jsonString)] : nil
            }),
        "signin-signature-not-verified": signin { userData, _ in
            JSONValue.parseIfJSON(userData)?["id"] != nil ? userData : nil
        },
        "signin-id-defaulted": signin { userData, link in
            guard case .object(var fields)? = JSONValue.parseIfJSON(userData), fields["id"] == nil else { return nil }
            fields["id"] = .string("anonymous-\(link.id)")
            return JSONValue.object(fields).jsonString
        },
        "drop-user-events": rewrite(F.dropEvents(isUserChannel)),
        "user-events-first-connection": rewrite(
            F.server { m, _, link in
                guard let channel = m.channel, isUserChannel(channel) else { return nil }
                if m.event == PusherEventName.subscriptionSucceeded {
                    _ = link.hub.shared("first:\(channel)") { if $0 == nil { $0 = "\(link.id)" } }
                    return nil
                }
                guard F.isAppEvent(m) else { return nil }
                return link.hub.shared("first:\(channel)", { _ in }) == "\(link.id)" ? nil : []
            }),
        "user-events-to-everyone": appEvent { m, text, _ in
            guard let channel = m.channel, isUserChannel(channel) else { return nil }
            return [.client(text), .notSubscribed(channel: channel, text)]
        },
        "user-channels-open": DeviationSetup(
            rewrite: {
                var r = F.subscribe { channel, _, link in
                    guard isUserChannel(channel), let me = link.note("user"),
                        channel != PusherEventName.serverToUserPrefix + me
                    else { return nil }
                    return [.client(F.succeeded(channel))]
                }
                let subscribe = r.fromClient
                r.fromClient = { text, m, link in
                    if let m, m.event == PusherEventName.signin,
                        let id = m.dataJSON?["user_data"]?.stringValue.flatMap(JSONValue.parseIfJSON)?["id"]?
                            .stringValue
                    {
                        link.setNote("user", id)
                    }
                    return subscribe(text, m, link)
                }
                return r
            }()),
        "watchlist-no-online": watchlist { text, link in
            text.contains("online") && link.channels.contains(where: isUserChannel)
        },
        "watchlist-no-offline": watchlist { text, _ in text.contains("offline") },
        "watchlist-no-initial-state": watchlist { _, link in !link.channels.contains(where: isUserChannel) },
        "terminate-does-nothing": rewrite(
            F.request { r, _ in
                guard r.method == "POST", r.path.hasSuffix("/terminate_connections"), r.signedRight else {
                    return false
                }
                r.path = "/apps/\(F.appID)/users/conform-nobody/terminate_connections"
                return true
            }),
        "terminate-closes-everyone": DeviationSetup(
            rewrite: {
                var r = ProxyRewrite()
                r.answer = { request, status, body, hub in
                    if request.path.hasSuffix("/terminate_connections"), status == 200,
                        !request.path.contains("probe")
                    {
                        hub.closeAll(code: 4009)
                    }
                    return (status, body)
                }
                return r
            }()),
        "no-cache-miss": rewrite(F.server { m, _, _ in m.event == PusherEventName.cacheMiss ? [] : nil }),
        "cache-not-replayed": noReplay("cache-"),
        "cache-miss-always": rewrite(
            F.server { m, text, _ in
                guard m.event == PusherEventName.subscriptionSucceeded, let channel = m.channel,
                    channel.hasPrefix("cache-")
                else { return nil }
                return [
                    .client(text),
                    .client(
                        PusherMessage(event: PusherEventName.cacheMiss, channel: channel, data: .string("{}"))
                            .jsonString),
                ]
            }),
        "private-cache-open": rewrite(
            F.subscribe { channel, _, link in
                channel.hasPrefix("private-cache-") ? [.server(F.signedSubscribe(channel, link))] : nil
            }),
        "presence-cache-not-replayed": noReplay("presence-cache-"),
        "subscription-count-zero-based": subscriptionCount { $0 - 1 },
        "subscription-count-once": subscriptionCount { $0 > 1 ? nil : $0 },
        "subscription-count-on-presence": rewrite(
            F.server { m, text, _ in
                guard m.event == PusherEventName.subscriptionSucceeded, let channel = m.channel,
                    channel.hasPrefix("presence-")
                else { return nil }
                return [
                    .client(text),
                    .client(
                        PusherMessage(
                            event: PusherEventName.subscriptionCount, channel: channel,
                            data: .string(#"{"subscription_count":1}"#)
                        ).jsonString),
                ]
            }),
        "subscription-count-camel-case": DeviationSetup(
            rewrite: {
                var r = F.server { m, _, _ in
                    guard m.event == PusherEventName.subscriptionCount, let count = m.dataJSON?["subscription_count"]
                    else { return nil }
                    return [.client(F.with(m, data: ["subscriptionCount": count]))]
                }
                r.answer = answerJSON({ isGetChannel($0) }) { $0["subscription_count"] = nil }.rewrite.answer
                return r
            }()),
        "api-without-subscription-count": answerJSON({ isGetChannel($0) }) { $0["subscription_count"] = nil },
    ]

    // MARK: - Webhooks, cluster, robustness

    static func stops(_ f: @escaping @Sendable (WebSocketDataFrame, ProxyLink) -> Bool) -> DeviationSetup {
        var r = ProxyRewrite()
        r.stopsServer = f
        return DeviationSetup(rewrite: r)
    }

    static func text(_ frame: WebSocketDataFrame) -> String? {
        frame.opcode == .text && frame.fin ? String(validating: Array(buffer: frame.data), as: UTF8.self) : nil
    }

    static let others: [String: DeviationSetup] = [
        "webhooks-unwrapped": DeviationSetup(
            rewrite: {
                var r = ProxyRewrite()
                r.webhook = { body in
                    (JSONValue.parseIfJSON(body)?["events"]?.arrayValue ?? []).map { WebhookPost(body: $0.jsonString) }
                }
                return r
            }(), webhooks: true),
        "webhooks-badly-signed": DeviationSetup(
            rewrite: {
                var r = ProxyRewrite()
                r.webhook = { [WebhookPost(body: $0, secret: "not-the-secret")] }
                return r
            }(), webhooks: true),
        "webhooks-as-text": DeviationSetup(
            rewrite: {
                var r = ProxyRewrite()
                r.webhook = { [WebhookPost(body: $0, contentType: "text/plain")] }
                return r
            }(), webhooks: true),
        "no-channel-occupied": F.withoutWebhooks("channel_occupied"),
        "no-channel-vacated": F.withoutWebhooks("channel_vacated"),
        "no-member-added-webhook": F.withoutWebhooks("member_added"),
        "no-member-removed-webhook": F.withoutWebhooks("member_removed"),
        "no-cache-miss-webhook": F.withoutWebhooks("cache_miss"),
        "webhooks-twice": DeviationSetup(
            rewrite: {
                var r = ProxyRewrite()
                r.webhook = { [WebhookPost(body: $0), WebhookPost(body: $0)] }
                return r
            }(), webhooks: true),
        "member-added-webhook-doubled": DeviationSetup(
            rewrite: F.webhookEvents { events in
                events.flatMap { $0["name"]?.stringValue == "member_added" ? [$0, $0] : [$0] }
            }, webhooks: true),
        "no-webhook-grace": DeviationSetup(configure: { $0.webhooks.grace = 0 }, webhooks: true),
        "client-event-data-object": DeviationSetup(
            rewrite: F.webhookEvents { events in
                events.map { event in
                    guard case .object(var fields) = event, fields["name"]?.stringValue == "client_event",
                        let data = fields["data"]?.stringValue, let json = JSONValue.parseIfJSON(data)
                    else { return event }
                    fields["data"] = json
                    return .object(fields)
                }
            }, webhooks: true),
        "webhooks-not-retried": DeviationSetup(
            configure: { $0.webhooks.maxAttempts = 1 }, webhooks: true, long: true),
        "nodes-not-clustered": DeviationSetup(nodes: 2, clustered: false),
        "no-pong-frames": DeviationSetup(dropServerFrames: [0xA]),
        "no-close-reply": DeviationSetup(dropServerFrames: [0x8]),
        "roster-local-only": DeviationSetup(nodes: 2, nodeB: DeviationSetups.presence["roster-only-self"]!.rewrite),
        "member-events-local-only": DeviationSetup(
            nodes: 2,
            nodeB: {
                var r = trackUsers()
                let inner = r.fromServer
                r.fromServer = { text, m, link in
                    guard let m, m.event == PusherEventName.memberAdded || m.event == PusherEventName.memberRemoved,
                        let channel = m.channel, let user = m.dataJSON?["user_id"]?.stringValue
                    else { return inner(text, m, link) }
                    let here = link.hub.links.contains { $0.note("user:\(channel)") == user }
                    return here ? [.client(text)] : []
                }
                return r
            }()),
        "counts-local-only": DeviationSetup(
            nodes: 2,
            nodeB: {
                var r = ProxyRewrite()
                r.answer = { request, status, text, hub in
                    guard status == 200, isGetChannel(request), let channel = F.channelOf(request.path),
                        case .object(var fields)? = JSONValue.parseIfJSON(text), fields["subscription_count"] != nil
                    else { return (status, text) }
                    let here = hub.links.filter { $0.channels.contains(channel) }.count
                    fields["subscription_count"] = .number(Double(here))
                    return (200, JSONValue.object(fields).jsonString)
                }
                return r
            }()),
        "users-local-only": DeviationSetup(
            nodes: 2,
            nodeB: {
                var r = trackUsers()
                r.answer = { request, status, text, hub in
                    let parts = request.path.split(separator: "/")
                    guard status == 200, request.method == "GET", parts.count == 5, parts[4] == "users",
                        case .object(var fields)? = JSONValue.parseIfJSON(text)
                    else { return (status, text) }
                    let channel = String(parts[3])
                    let here = Set(hub.links.compactMap { $0.note("user:\(channel)") })
                    fields["users"] = .array(
                        (fields["users"]?.arrayValue ?? []).filter { here.contains($0["id"]?.stringValue ?? "") })
                    return (200, JSONValue.object(fields).jsonString)
                }
                return r
            }()),
        "channels-local-only": DeviationSetup(
            nodes: 2,
            nodeB: {
                var r = ProxyRewrite()
                r.answer = { request, status, text, hub in
                    guard status == 200, isGetChannels(request),
                        case .object(var fields)? = JSONValue.parseIfJSON(text),
                        case .object(let channels)? = fields["channels"]
                    else { return (status, text) }
                    let here = Set(hub.links.flatMap(\.channels))
                    fields["channels"] = .object(channels.filter { here.contains($0.key) })
                    return (200, JSONValue.object(fields).jsonString)
                }
                return r
            }()),
        "client-events-local-only": DeviationSetup(
            nodes: 2, nodeB: F.server { m, _, _ in m.event.hasPrefix("client-") ? [] : nil }),
        "publish-local-only": DeviationSetup(
            nodes: 2,
            nodeB: F.request { r, hub in
                guard F.isTrigger(r), r.signedRight, case .object(var fields)? = JSONValue.parseIfJSON(r.body),
                    let channels = fields["channels"]?.arrayValue?.compactMap(\.stringValue)
                else { return false }
                let here = Set(hub.links.flatMap(\.channels))
                let kept = channels.filter { here.contains($0) }
                guard kept.count < channels.count else { return false }
                fields["channels"] = .array((kept.isEmpty ? ["conform-nowhere"] : kept).map { .string($0) })
                r.body = JSONValue.object(fields).jsonString
                return true
            }),
        "late-duplicate-member-added": DeviationSetup(
            rewrite: F.server { m, text, _ in
                m.event == PusherEventName.memberAdded ? [.client(text), .clientLater(text, 1.5)] : nil
            }, nodes: 2),
        "socket-id-ignored-across": {
            var setup = DeviationSetups.api["socket-id-ignored"]!
            setup.nodes = 2
            return setup
        }(),
        "webhooks-per-node": DeviationSetup(
            rewrite: F.webhookEvents { events in
                events.flatMap { $0["name"]?.stringValue == "channel_occupied" ? [$0, $0] : [$0] }
            }, nodes: 2, webhooks: true),
        "binary-frame-stops": stops { frame, _ in frame.opcode == .binary },
        "malformed-json-stops": stops { frame, _ in
            text(frame).map { JSONValue.parseIfJSON($0) == nil && !$0.contains("[[[[") } ?? false
        },
        "wrong-types-stop": stops { frame, _ in
            text(frame).flatMap(JSONValue.parseIfJSON).map { json in
                if case .object(let o) = json, let event = o["event"] { return event.stringValue == nil }
                return false
            } ?? false
        },
        "invalid-utf8-stops": stops { frame, _ in
            frame.opcode == .text && frame.fin && String(validating: Array(buffer: frame.data), as: UTF8.self) == nil
        },
        "oversized-stops": stops { frame, _ in frame.data.readableBytes > 1 << 20 },
        "deep-nesting-stops": stops { frame, _ in
            frame.data.readableBytes > 1000 && (text(frame)?.contains(String(repeating: "[", count: 1000)) ?? false)
        },
        "ping-flood-stops": stops { frame, link in
            text(frame)?.contains(PusherEventName.ping) == true && link.countPing() > 100
        },
        "abrupt-drop-stops": DeviationSetup(
            rewrite: {
                var r = ProxyRewrite()
                r.pendingSubscribeDropStopsServer = true
                return r
            }()),
        "fragments-lost": DeviationSetup(
            rewrite: {
                var r = ProxyRewrite()
                r.passFragment = { $0 != .continuation }
                return r
            }()),
    ]
}
