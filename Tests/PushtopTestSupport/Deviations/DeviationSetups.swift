import Foundation
import PusherProtocol
import PushtopConformance
import PushtopServer

/// Each deviation of ``CaseDeviations``, made: keyed by its name.
public enum DeviationSetups {
    typealias R = Rewrites

    static func rewrite(_ r: ProxyRewrite) -> DeviationSetup { DeviationSetup(rewrite: r) }
    static func limits(_ f: @escaping @Sendable (inout PusherLimits) -> Void) -> DeviationSetup {
        DeviationSetup(configure: { f(&$0.limits) })
    }

    /// The setup of every deviation of ``CaseDeviations/all``, by its name.
    public static let all: [String: DeviationSetup] = connection.merging(channels) { a, _ in a }
        .merging(presence) { a, _ in a }.merging(api) { a, _ in a }.merging(features) { a, _ in a }
        .merging(others) { a, _ in a }

    // MARK: - Connection

    static func establishedData(_ f: @escaping @Sendable ([String: JSONValue]) -> JSONValue) -> DeviationSetup {
        rewrite(
            R.server { m, _, _ in
                guard m.event == PusherEventName.connectionEstablished, let fields = m.dataJSON?.objectValue else {
                    return nil
                }
                return [.client(R.with(m, data: f(fields)))]
            })
    }

    static func query(_ path: String, _ f: (String) -> String) -> String {
        let parts = path.split(separator: "?", maxSplits: 1).map(String.init)
        return parts[0] + "?" + f(parts.count > 1 ? parts[1] : "")
    }

    static let connection: [String: DeviationSetup] = [
        "no-connection-established": rewrite(
            R.server { m, _, _ in m.event == PusherEventName.connectionEstablished ? [] : nil }),
        "established-data-object": rewrite(
            R.server { m, _, _ in
                guard m.event == PusherEventName.connectionEstablished, let data = m.dataJSON else { return nil }
                var copy = m
                copy.data = data
                return [.client(copy.jsonString)]
            }),
        "socket-id-not-numeric": establishedData { fields in
            var f = fields
            f["socket_id"] = .string("socket-" + (fields["socket_id"]?.stringValue ?? "").filter(\.isNumber))
            return .object(f)
        },
        "no-activity-timeout": establishedData { fields in
            var f = fields
            f["activity_timeout"] = nil
            return .object(f)
        },
        "one-socket-id": establishedData { fields in
            var f = fields
            f["socket_id"] = "1.1"
            return .object(f)
        },
        "refuses-pusher-js-query": rewrite(R.upgrade { path, _ in path.contains("client=js") ? nil : path }),
        "any-key-accepted": rewrite(
            R.upgrade { path, key in
                guard path.hasPrefix("/app/") else { return nil }
                return query(
                    "/app/\(key)",
                    { _ in path.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? "" })
            }),
        "any-protocol-accepted": rewrite(
            R.upgrade { path, _ in
                guard path.hasPrefix("/app/") else { return nil }
                return query(path) { q in
                    var items = q.split(separator: "&").map(String.init)
                    if let index = items.firstIndex(where: { $0.hasPrefix("protocol=") }) {
                        if !items[index].dropFirst(9).allSatisfy(\.isNumber) { items[index] = "protocol=7" }
                    } else {
                        items.insert("protocol=7", at: 0)
                    }
                    return items.joined(separator: "&")
                }
            }),
        "protocol-99-accepted": rewrite(
            R.upgrade { path, _ in
                path.hasPrefix("/app/") ? path.replacingOccurrences(of: "protocol=99", with: "protocol=7") : nil
            }),
        "any-path-accepted": rewrite(
            R.upgrade { path, key in
                path.hasPrefix("/app/")
                    ? path
                    : "/app/\(key)?"
                        + (path.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init)
                            ?? "protocol=7")
            }),
        "no-pusher-pong": rewrite(R.server { m, _, _ in m.event == PusherEventName.pong ? [] : nil }),
        "never-pings": DeviationSetup(
            rewrite: R.server { m, _, _ in m.event == PusherEventName.ping ? [] : nil },
            configure: { $0.activityTimeout = 2 }, long: true),
        "unanswered-pings-tolerated": DeviationSetup(
            rewrite: R.server { m, text, _ in
                m.event == PusherEventName.ping
                    ? [
                        .client(text),
                        .server(PusherMessage(event: PusherEventName.pong, data: .string("{}")).jsonString),
                    ]
                    : nil
            },
            configure: {
                $0.activityTimeout = 2
                $0.pongTimeout = 2
            }, long: true),
        "refusal-then-dropped": DeviationSetup(dropServerFrames: [0x8], endAtDroppedClose: true),
        "unknown-event-closes": rewrite(
            R.client { m, _, _ in
                m.event.hasPrefix("pusher:")
                    && ![
                        PusherEventName.ping, PusherEventName.pong, PusherEventName.subscribe,
                        PusherEventName.unsubscribe, PusherEventName.signin,
                    ].contains(m.event) ? [.close(4200)] : nil
            }),
    ]

    // MARK: - Public, private, client events

    static func validName(_ name: String) -> Bool {
        name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-=@,.;".contains($0)) }
    }

    static func appEvent(_ f: @escaping @Sendable (PusherMessage, String, ProxyLink) -> [Hop]?) -> DeviationSetup {
        rewrite(R.server { m, text, link in R.isAppEvent(m) ? f(m, text, link) : nil })
    }

    /// Delivers the app's events on a channel to its first `count` subscribers (through this proxy) only.
    static func fanOut(to count: Int, destructive: Bool = false) -> DeviationSetup {
        DeviationSetup(
            rewrite: R.server { m, _, link in
                guard let channel = m.channel else { return nil }
                if m.event == PusherEventName.subscriptionSucceeded {
                    _ = link.hub.shared("fan:\(channel)") { $0 = ($0 ?? "") + "\(link.id)," }
                    return nil
                }
                guard R.isAppEvent(m) else { return nil }
                let first = (link.hub.shared("fan:\(channel)") { _ in } ?? "").split(separator: ",").prefix(count)
                return first.contains(Substring("\(link.id)")) ? nil : []
            }, destructive: destructive)
    }

    static func clientEvent(_ f: @escaping @Sendable (PusherMessage, String, ProxyLink) -> [Hop]?) -> DeviationSetup {
        rewrite(R.client { m, text, link in m.event.hasPrefix("client-") ? f(m, text, link) : nil })
    }

    static let channels: [String: DeviationSetup] = [
        "no-subscription-succeeded": rewrite(
            R.server { m, _, _ in
                guard m.event == PusherEventName.subscriptionSucceeded else { return nil }
                var copy = m
                copy.event = "pusher:subscription_succeeded"
                return [.client(copy.jsonString)]
            }),
        "drop-api-events": appEvent { _, _, _ in [] },
        "data-json-reencoded": appEvent { m, _, _ in
            guard let text = m.dataText, text.contains("  "), let json = JSONValue.parseIfJSON(text) else { return nil }
            return [.client(R.with(m, data: json))]
        },
        "text-data-quoted": appEvent { m, _, _ in
            guard let text = m.dataText, JSONValue.parseIfJSON(text) == nil else { return nil }
            return [.client(R.with(m, data: .string(text)))]
        },
        "unicode-escaped": appEvent { m, _, _ in
            guard let text = m.dataText, !text.allSatisfy(\.isASCII) else { return nil }
            var escaped = ""
            for unit in text.utf16 {
                escaped += unit < 128 ? String(UnicodeScalar(UInt8(unit))) : String(format: "\\u%04x", unit)
            }
            var copy = m
            copy.data = .string(escaped)
            return [.client(copy.jsonString)]
        },
        "event-name-cut-at-colon": appEvent { m, _, _ in
            guard let cut = m.event.split(separator: ":").last, cut.count < m.event.count else { return nil }
            var copy = m
            copy.event = String(cut)
            return [.client(copy.jsonString)]
        },
        "unsubscribe-ignored": rewrite(R.client { m, _, _ in m.event == PusherEventName.unsubscribe ? [] : nil }),
        "resubscribe-ignored": rewrite(
            R.client { m, _, link in
                guard let channel = m.dataJSON?["channel"]?.stringValue else { return nil }
                if m.event == PusherEventName.unsubscribe { link.setNote("left:\(channel)", "1") }
                return m.event == PusherEventName.subscribe && link.note("left:\(channel)") != nil ? [] : nil
            }),
        "duplicate-subscribe-doubles": DeviationSetup(
            rewrite: {
                var r = R.subscribe { channel, _, link in
                    if link.channels.contains(channel) { link.setNote("twice:\(channel)", "1") }
                    return nil
                }
                r.fromServer = { text, m, link in
                    guard let m, R.isAppEvent(m), let channel = m.channel, link.note("twice:\(channel)") != nil else {
                        return [.client(text)]
                    }
                    return [.client(text), .client(text)]
                }
                return r
            }()),
        "four-channels-per-connection": DeviationSetup(
            rewrite: R.server { m, _, link in
                guard R.isAppEvent(m), let channel = m.channel else { return nil }
                let order = (link.note("order") ?? "").split(separator: "\n").map(String.init)
                if !order.contains(channel) { link.setNote("order", (order + [channel]).joined(separator: "\n")) }
                return ((order.firstIndex(of: channel) ?? order.count) < 4) ? nil : []
            }),
        "fan-out-to-three": fanOut(to: 3),
        "events-to-everyone": appEvent { m, text, _ in
            [.client(text), .notSubscribed(channel: m.channel ?? "", text)]
        },
        "even-events-late": appEvent { m, text, _ in
            guard let n = m.dataText.flatMap(Int.init), n % 2 == 0 else { return nil }
            return [.clientLater(text, 0.05)]
        },
        "invalid-names-accepted": rewrite(
            R.subscribe { channel, _, _ in validName(channel) ? nil : [.client(R.succeeded(channel))] }),
        "long-names-accepted": rewrite(
            R.subscribe { channel, _, _ in channel.count > 164 ? [.client(R.succeeded(channel))] : nil }),
        "names-capped-at-163": rewrite(
            R.subscribe { channel, _, _ in channel.count == 164 ? [.client(R.refusal(channel))] : nil }),
        "punctuation-refused": rewrite(
            R.subscribe { channel, _, _ in
                channel.contains(";") || channel.contains("@") ? [.client(R.refusal(channel))] : nil
            }),
        "unsubscribe-unknown-closes": rewrite(
            R.client { m, _, link in
                guard m.event == PusherEventName.unsubscribe, let channel = m.dataJSON?["channel"]?.stringValue,
                    !link.channels.contains(channel)
                else { return nil }
                return [.close(4200)]
            }),
        "subscribe-without-channel-ignored": rewrite(
            R.client { m, _, _ in
                m.event == PusherEventName.subscribe && m.dataJSON?["channel"]?.stringValue == nil ? [] : nil
            }),
        // Private channels
        "private-refused": rewrite(
            R.subscribe { channel, _, _ in channel.hasPrefix("private-") ? [.client(R.refusal(channel))] : nil }),
        "drop-private-events": rewrite(R.dropEvents { $0.hasPrefix("private-") }),
        "private-without-auth-accepted": rewrite(
            R.subscribe { channel, data, link in
                channel.hasPrefix("private-") && data["auth"] == nil
                    ? [.server(R.signedSubscribe(channel, link))] : nil
            }),
        "signature-not-verified": rewrite(
            R.subscribe { channel, data, link in
                guard channel.hasPrefix("private-"), let auth = data["auth"]?.stringValue else { return nil }
                let parts = auth.split(separator: ":")
                guard parts.count == 2, parts[0] == R.key, parts[1].count == 64, parts[1].allSatisfy(\.isHexDigit)
                else { return nil }
                return [.server(R.signedSubscribe(channel, link))]
            }),
        "auth-key-not-checked": rewrite(
            R.subscribe { channel, data, link in
                guard channel.hasPrefix("private-"), let auth = data["auth"]?.stringValue,
                    let signature = auth.split(separator: ":").last, auth.contains(":")
                else { return nil }
                let right = R.signedSubscribe(channel, link)
                let good = ChannelAuthSignature.auth(
                    key: R.key, secret: R.secret, socketID: link.socketID ?? "", channel: channel)
                return good.hasSuffix(":" + signature) ? [.server(right)] : nil
            }),
        "malformed-auth-accepted": rewrite(
            R.subscribe { channel, data, link in
                guard channel.hasPrefix("private-"), let auth = data["auth"]?.stringValue, !auth.contains(":") else {
                    return nil
                }
                return [.server(R.signedSubscribe(channel, link))]
            }),
        "refusal-closes": rewrite(
            R.server { m, text, _ in
                m.event == PusherEventName.subscriptionError
                    || (m.event == PusherEventName.error && m.channel != nil) ? [.client(text), .close(4009)] : nil
            }),
        // Client events
        "drop-client-events": rewrite(
            R.server { m, _, _ in
                m.event.hasPrefix("client-") && (m.channel ?? "").hasPrefix("private-") ? [] : nil
            }),
        "client-data-numbers-as-strings": rewrite(
            R.server { m, _, _ in
                guard m.event.hasPrefix("client-"), let data = m.dataJSON else { return nil }
                return [.client(R.with(m, data: R.numbersAsStrings(data)))]
            }),
        "client-events-echoed": clientEvent { _, text, _ in [.server(text), .client(text)] },
        "client-events-without-user-id": rewrite(
            R.server { m, _, _ in
                guard m.event.hasPrefix("client-"), m.userID != nil else { return nil }
                var copy = m
                copy.userID = nil
                return [.client(copy.jsonString)]
            }),
        "client-events-on-public": clientEvent { m, text, _ in
            guard let channel = m.channel, !channel.hasPrefix("private-"), !channel.hasPrefix("presence-") else {
                return nil
            }
            return [.server(text), .others(channel: channel, text)]
        },
        "any-event-name-from-clients": rewrite(
            R.client { m, text, _ in
                guard !m.event.hasPrefix("pusher:"), !m.event.hasPrefix("client-"), let channel = m.channel else {
                    return nil
                }
                return [.server(text), .others(channel: channel, text)]
            }),
        "client-events-without-subscription": clientEvent { m, text, link in
            guard let channel = m.channel, !link.channels.contains(channel) else { return nil }
            return [.server(text), .others(channel: channel, text)]
        },
        "client-events-to-everyone": clientEvent { m, text, _ in
            [.server(text), .notSubscribed(channel: m.channel ?? "", text)]
        },
        "client-events-unlimited": limits { $0.clientEventsPerSecond = 1000 },
        "client-events-20kb": limits { $0.maxEventDataBytes = 20_000 },
    ]
}
