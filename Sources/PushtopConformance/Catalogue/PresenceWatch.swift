import PusherProtocol

/// A presence channel watched by a member while another user joins it: the setup and the check of the member event
/// cases (on one node or across two).
struct PresenceWatch {
    let channel: String
    /// The member subscribed first, who sees the others come and go.
    let watcher: ProbeConnection
    /// The user who joins after the watcher, and its connection.
    let user: String
    let member: ProbeConnection

    /// Subscribes a watcher (on `watcherNode`), then a new user (on `node`, with `info`), to a presence channel of the
    /// case.
    init(_ ctx: CaseContext, watcherNode: Int = 0, node: Int = 0, info: JSONValue? = nil) async throws {
        channel = ctx.channel("presence-")
        watcher = try await ctx.subscribed(channel, node: watcherNode)
        user = ctx.user()
        member = try await ctx.subscribed(channel, node: node, user: user, info: info)
    }

    /// Fails the case unless the watcher receives `event` (member_added or member_removed) naming the user; `expected`
    /// says what the failure expected.
    @discardableResult
    func mustAnnounce(_ ctx: CaseContext, _ event: String, timeout: Double? = nil, expected: String) async throws
        -> PusherMessage
    {
        let message = try await ctx.mustReceive(watcher, event, channel: channel, timeout: timeout)
        try check(
            message.dataJSON?["user_id"]?.stringValue == user, expected, message.dataText ?? "-", ctx)
        return message
    }
}

/// A presence channel of the case with a watcher also subscribed to a public marker channel, so that a barrier on
/// the marker tells when every member event sent before has arrived.
struct MarkedPresenceWatch {
    let channel: String
    let marker: String
    let watcher: ProbeConnection

    init(_ ctx: CaseContext, node: Int = 0) async throws {
        channel = ctx.channel("presence-")
        marker = ctx.channel("", "marker")
        watcher = try await ctx.subscribed(channel, node: node)
        try await ctx.mustSubscribe(watcher, marker)
    }
}
