import PushtopProxy

/// How `pushtop conform --client` runs: the proxy it starts, the timings it announces and allows, which cases.
public struct ClientJudgeSettings: Sendable {
    /// The proxy the client connects to, with its upstream (the app's real server).
    public var proxy: ProxyConfiguration
    /// The `activity_timeout` announced to the client (seconds): it must ping after this much silence.
    public var activityTimeout: Int
    /// How long a client may wait for a pong before it gives the connection up (Pusher's clients: 30 s).
    public var pongTimeout: Duration
    /// How long to wait for what a client should do at once (a pong, a reconnection after 4200).
    public var patience: Duration
    /// The whole run at most; cases not reached by then are reported not observed.
    public var timeLimit: Duration
    /// Only these cases (ids or groups); empty: all.
    public var only: [String]

    /// Settings for a proxy configuration; the other values are Pusher's and pusher-js's defaults, scaled down.
    public init(
        proxy: ProxyConfiguration, activityTimeout: Int = 5, pongTimeout: Duration = .seconds(30),
        patience: Duration = .seconds(5), timeLimit: Duration = .seconds(300), only: [String] = []
    ) {
        self.proxy = proxy
        self.activityTimeout = activityTimeout
        self.pongTimeout = pongTimeout
        self.patience = patience
        self.timeLimit = timeLimit
        self.only = only
    }
}
