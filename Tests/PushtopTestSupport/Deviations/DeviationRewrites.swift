import Foundation
import PusherProtocol
import PushtopConformance
import PushtopServer

/// How each deviation of ``CaseDeviations`` is made: a rewrite in the proxy, the server's configuration, the nodes.
public struct DeviationSetup: Sendable {
    /// What the proxy in front of the server (node A's, with two nodes) changes.
    public var rewrite = ProxyRewrite()
    /// The in-process server's configuration (limits, clocks, webhook options), changed.
    public var configure: @Sendable (inout ServerConfiguration) -> Void = { _ in }
    /// Two nodes: two proxies in front of one server, or (`clustered` false) each in front of a server of its own.
    public var nodes = 1
    /// With two nodes: both proxies in front of one server (a cluster), or not.
    public var clustered = true
    /// Node B's rewrite, when it differs from node A's (two proxies in front of one server).
    public var nodeB: ProxyRewrite?
    /// The server posts its webhooks through the proxy (``FaultProxy/webhookURL``), which relays them, rewritten,
    /// to conform's listener.
    public var webhooks = false
    /// Runs the destructive cases (`--destructive`).
    public var destructive = false
    /// Opcodes of the server's WebSocket frames dropped on the wire (by the proxy's TCP layer, below any WebSocket
    /// library).
    public var dropServerFrames: Set<UInt8> = []
    /// With `dropServerFrames` holding `0x8`: the TCP connection ends where the server's close frame was (a server
    /// that drops the connection without a close frame).
    public var endAtDroppedClose = false
    /// Runs the cases that wait on the server's own clocks (`--long`; the server's activity timeout kept short).
    public var long = false
}

/// Small pieces the rewrites are made of.
public enum Rewrites {
    /// The app the rewrites sign for: the server behind the proxy serves it.
    public static let key = "pushtop-key", secret = "pushtop-secret", appID = "1"

    /// An event of the app (not `pusher:`, `pusher_internal:` or a client event).
    static func isAppEvent(_ m: PusherMessage) -> Bool {
        !m.event.hasPrefix("pusher:") && !m.event.hasPrefix("pusher_internal:") && !m.event.hasPrefix("client-")
    }

    static func channel(_ m: PusherMessage?) -> String? {
        m?.channel ?? m?.dataJSON?["channel"]?.stringValue
    }

    static func succeeded(_ channel: String) -> String {
        PusherMessage(event: PusherEventName.subscriptionSucceeded, channel: channel, data: .string("{}")).jsonString
    }

    static func refusal(_ channel: String) -> String {
        PusherMessage(
            event: PusherEventName.subscriptionError, channel: channel,
            data: .string(#"{"type":"AuthError","error":"refused by the deviation","status":403}"#)
        ).jsonString
    }

    /// A `pusher:subscribe` for `channel` signed right for the link (with `channelData`).
    static func signedSubscribe(_ channel: String, _ link: ProxyLink, channelData: String? = nil) -> String {
        let auth = ChannelAuthSignature.auth(
            key: key, secret: secret, socketID: link.socketID ?? "", channel: channel, channelData: channelData)
        var data: [String: JSONValue] = ["channel": .string(channel), "auth": .string(auth)]
        if let channelData { data["channel_data"] = .string(channelData) }
        return PusherMessage(event: PusherEventName.subscribe, data: .object(data)).jsonString
    }

    /// The message with `data` as a string holding `value`'s JSON.
    static func with(_ m: PusherMessage, data value: JSONValue) -> String {
        var copy = m
        copy.data = .string(value.jsonString)
        return copy.jsonString
    }

    /// Numbers turned into strings, everywhere in `value`.
    static func numbersAsStrings(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let n): return .string(n.rounded() == n ? String(Int(n)) : String(n))
        case .array(let a): return .array(a.map(numbersAsStrings))
        case .object(let o): return .object(o.mapValues(numbersAsStrings))
        default: return value
        }
    }

    /// A rewrite of the server's frames: `f` returns the hops, or `nil` to pass the frame on.
    static func server(_ f: @escaping @Sendable (PusherMessage, String, ProxyLink) -> [Hop]?) -> ProxyRewrite {
        var r = ProxyRewrite()
        r.fromServer = { text, m, link in m.flatMap { f($0, text, link) } ?? [.client(text)] }
        return r
    }

    /// A rewrite of the clients' frames: `f` returns the hops, or `nil` to pass the frame on.
    static func client(_ f: @escaping @Sendable (PusherMessage, String, ProxyLink) -> [Hop]?) -> ProxyRewrite {
        var r = ProxyRewrite()
        r.fromClient = { text, m, link in m.flatMap { f($0, text, link) } ?? [.server(text)] }
        return r
    }

    /// A rewrite of the subscriptions clients send: `f` gets the channel and the subscribe's data.
    static func subscribe(_ f: @escaping @Sendable (String, JSONValue, ProxyLink) -> [Hop]?) -> ProxyRewrite {
        client { m, _, link in
            guard m.event == PusherEventName.subscribe, let data = m.dataJSON,
                let channel = data["channel"]?.stringValue
            else { return nil }
            return f(channel, data, link)
        }
    }

    /// Drops the app's events on channels that `matches`.
    static func dropEvents(_ matches: @escaping @Sendable (String) -> Bool) -> ProxyRewrite {
        server { m, _, _ in isAppEvent(m) && matches(m.channel ?? "") ? [] : nil }
    }

    /// A rewrite of the upgrade's path.
    static func upgrade(_ f: @escaping @Sendable (String, String) -> String?) -> ProxyRewrite {
        var r = ProxyRewrite()
        r.upgrade = f
        return r
    }

    /// A rewrite of HTTP requests.
    static func request(_ f: @escaping @Sendable (inout ProxiedRequest, ProxyHub) -> Bool) -> ProxyRewrite {
        var r = ProxyRewrite()
        r.request = f
        return r
    }

    /// A rewrite of HTTP answers: `f` returns the new answer, or `nil` to keep it.
    static func answer(_ f: @escaping @Sendable (ProxiedRequest, Int, JSONValue?, String) -> (Int, String)?)
        -> ProxyRewrite
    {
        var r = ProxyRewrite()
        r.answer = { request, status, body, _ in f(request, status, JSONValue.parseIfJSON(body), body) ?? (status, body)
        }
        return r
    }

    /// A rewrite of the events of each webhook.
    static func webhookEvents(_ f: @escaping @Sendable ([JSONValue]) -> [JSONValue]) -> ProxyRewrite {
        var r = ProxyRewrite()
        r.webhook = { body in
            guard case .object(var fields)? = JSONValue.parseIfJSON(body), let events = fields["events"]?.arrayValue
            else { return [WebhookPost(body: body)] }
            let kept = f(events)
            if kept.isEmpty { return [] }
            fields["events"] = .array(kept)
            return [WebhookPost(body: JSONValue.object(fields).jsonString)]
        }
        return r
    }

    static func withoutWebhooks(_ name: String) -> DeviationSetup {
        DeviationSetup(rewrite: webhookEvents { $0.filter { $0["name"]?.stringValue != name } }, webhooks: true)
    }

    /// The GET /channels/NAME (not …/users) path's channel.
    static func channelOf(_ path: String) -> String? {
        let parts = path.split(separator: "/")
        guard parts.count == 4, parts[2] == "channels" else { return nil }
        return String(parts[3])
    }

    static func isTrigger(_ r: ProxiedRequest) -> Bool { r.method == "POST" && r.path.hasSuffix("/events") }
    static func isBatch(_ r: ProxiedRequest) -> Bool { r.method == "POST" && r.path.hasSuffix("/batch_events") }

    /// The user id of a presence subscription's channel_data.
    static func user(_ data: JSONValue) -> String? {
        data["channel_data"]?.stringValue.flatMap(JSONValue.parseIfJSON)?["user_id"]?.stringValue
    }

    /// The presence roster in a subscription_succeeded.
    static func roster(_ m: PusherMessage) -> [String: JSONValue]? {
        m.dataJSON?["presence"]?.objectValue
    }

    static func withRoster(_ m: PusherMessage, _ roster: [String: JSONValue]) -> String {
        with(m, data: .object(["presence": .object(roster)]))
    }

    /// Members of a presence channel through the proxy, `link:user` each, kept in the hub.
    static func members(_ hub: ProxyHub, _ channel: String, _ update: (inout [String]) -> Void = { _ in }) -> [String] {
        let text = hub.shared("members:\(channel)") { value in
            var list = (value ?? "").split(separator: "\n").map(String.init)
            update(&list)
            value = list.joined(separator: "\n")
        }
        return (text ?? "").split(separator: "\n").map(String.init)
    }

    static func memberEvent(_ event: String, _ channel: String, _ user: String) -> String {
        PusherMessage(
            event: event, channel: channel, data: .string(JSONValue.object(["user_id": .string(user)]).jsonString)
        ).jsonString
    }

    static func now() -> Double { Date().timeIntervalSince1970 }
}
