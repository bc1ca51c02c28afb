import PusherProtocol

/// One fault, as a value: what to do, to which connections, channels and events, when, and how often.
///
/// The compact syntax (`--fault`, repeatable) is `ACTION[:ARGUMENT][,KEY=VALUE…]`:
///
/// | action | argument | does |
/// |---|---|---|
/// | `close` | a close code (`4200`, `4100`, `4009`…; `1006`: drop the TCP connection with no close frame) | closes the matching connections |
/// | `refuse-subscribe` | how many (default 1) | answers the next subscriptions to `channel=` with `pusher:subscription_error` |
/// | `drop` / `duplicate` | — | drops, or sends twice, the matching events (server to client) |
/// | `delay` | milliseconds (`500`, `500ms`, `2s`) | holds the matching events back that long |
/// | `stall` | — | relays nothing more on the matching connections (the client's pong timeout fires) |
/// | `outage` | seconds (`10`, `10s`) | refuses new connections for that long |
///
/// Keys: `channel=PATTERN`, `event=PATTERN` (`*` matches any run of characters), `socket=ID`, `user=ID`,
/// `fraction=0.25` (that share of connections, chosen by connection number), `after=5s` (per connection: from its
/// `pusher:connection_established`; for `outage`: from when the rule is added), `times=N` (applications at most;
/// unlimited by default).
///
/// `close:4200,after=2s,times=1` closes the first connection two seconds after it is established;
/// `refuse-subscribe:2,channel=private-*` refuses the next two private subscriptions;
/// `delay:300ms,channel=ticker,event=price` delays every `price` event on `ticker`.
public struct FaultRule: Sendable, Hashable, CustomStringConvertible {
    /// What the fault does.
    public enum Action: Sendable, Hashable {
        /// Close with this code; 1006 drops the connection without a close frame.
        case close(code: Int)
        /// Answer this many subscriptions with `pusher:subscription_error` instead of relaying them.
        case refuseSubscriptions(count: Int)
        case drop
        case duplicate
        case delay(milliseconds: Int)
        case stall
        /// Refuse new connections for this many seconds.
        case outage(seconds: Double)
    }

    /// What it does.
    public var action: Action
    /// Channels it applies to (a `*` pattern); `nil`: any.
    public var channel: String?
    /// Events it applies to (a `*` pattern); `nil`: any.
    public var event: String?
    /// The one socket it applies to.
    public var socketID: String?
    /// The one user it applies to (from `pusher:signin` or a presence subscription).
    public var userID: String?
    /// The share of connections it applies to (0 to 1].
    public var fraction: Double?
    /// Seconds: per connection from its establishment (from the rule's start for ``Action/outage(seconds:)``).
    public var after: Double
    /// How many times at most it applies; `nil`: without limit.
    public var times: Int?

    /// A rule from its parts (see the compact syntax for their meaning).
    public init(
        action: Action, channel: String? = nil, event: String? = nil, socketID: String? = nil, userID: String? = nil,
        fraction: Double? = nil, after: Double = 0, times: Int? = nil
    ) {
        self.action = action
        self.channel = channel
        self.event = event
        self.socketID = socketID
        self.userID = userID
        self.fraction = fraction
        self.after = after
        self.times = times
    }

    /// The rule in its compact syntax (what `fault` rows name).
    public var description: String {
        var text: String
        switch action {
        case .close(let code): text = "close:\(code)"
        case .refuseSubscriptions(let count): text = "refuse-subscribe:\(count)"
        case .drop: text = "drop"
        case .duplicate: text = "duplicate"
        case .delay(let ms): text = "delay:\(ms)ms"
        case .stall: text = "stall"
        case .outage(let seconds): text = "outage:\(Self.number(seconds))s"
        }
        if let channel { text += ",channel=\(channel)" }
        if let event { text += ",event=\(event)" }
        if let socketID { text += ",socket=\(socketID)" }
        if let userID { text += ",user=\(userID)" }
        if let fraction { text += ",fraction=\(Self.number(fraction))" }
        if after > 0 { text += ",after=\(Self.number(after))s" }
        if let times { text += ",times=\(times)" }
        return text
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// Whether a connection is in the rule's scope (socket, user, fraction); channels are matched per frame.
    func covers(socketID: String?, userID: String?, connectionNumber: Int) -> Bool {
        if let wanted = self.socketID, wanted != socketID { return false }
        if let wanted = self.userID, wanted != userID { return false }
        if let fraction, !Self.chosen(connectionNumber, fraction: fraction) { return false }
        return true
    }

    /// Whether connection number `n` is among a `fraction` of connections: spread evenly (golden-ratio steps), so
    /// any run of connections gets close to that share.
    static func chosen(_ n: Int, fraction: Double) -> Bool {
        let position = (Double(n) * 0.618_033_988_749_895).truncatingRemainder(dividingBy: 1)
        return position < fraction
    }

    /// Whether `channel` and `event` match the rule's patterns (a missing pattern matches anything).
    func matches(channel: String?, event: String?) -> Bool {
        if let pattern = self.channel {
            guard let channel, Glob.matches(pattern, channel) else { return false }
        }
        if let pattern = self.event {
            guard let event, Glob.matches(pattern, event) else { return false }
        }
        return true
    }
}
