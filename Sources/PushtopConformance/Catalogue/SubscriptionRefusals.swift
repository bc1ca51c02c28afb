import PusherProtocol

extension CaseContext {
    /// Opens a connection, subscribes it to `channel` (signed unless `auth` gives the `auth` to send for it) and passes
    /// when the server refuses; `what` names what should be refused.
    func mustRefuseSubscription(
        _ channel: String, user: String? = nil, info: JSONValue? = nil, auth: ((ProbeConnection) -> String)? = nil,
        channelData: String? = nil, _ what: String
    ) async throws -> CaseOutcome {
        let c = try await connect()
        return try refused(
            await subscribe(c, channel, user: user, info: info, auth: auth?(c), channelData: channelData), what, self)
    }

    /// Opens a connection, sends `pusher:subscribe` for `channel` with exactly the fields `data` gives (nothing
    /// signed or added) and passes when the server refuses; `what` names what is missing.
    func mustRefuseSubscription(
        _ channel: String, sending data: (ProbeConnection) -> [String: JSONValue], _ what: String
    ) async throws -> CaseOutcome {
        let c = try await connect()
        let from = c.socket.count
        c.socket.send(event: PusherEventName.subscribe, data: .object(data(c)))
        return try refused(await answer(to: c, channel: channel, from: from, wait: patience), what, self)
    }

    /// Passes when a subscription to `channel` whose auth carries a wrong signature (`KEY:00`) is refused.
    func mustRefuseWrongSignature(_ channel: String) async throws -> CaseOutcome {
        try await mustRefuseSubscription(channel, auth: { _ in "\(self.target.key):00" }, "a wrong signature")
    }
}
