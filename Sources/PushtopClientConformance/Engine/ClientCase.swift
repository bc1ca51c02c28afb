import PushtopConformance

/// One named check of an app's Pusher client, judged from what the client sends through the proxy and when: what
/// it checks, how strongly Pusher documents it, where, and the steps that provoke and judge it.
package struct ClientCase: Sendable, Identifiable {
    /// A stable id, `client.group.what-it-checks`: results and diffs key on it.
    package let id: String
    package let level: ConformanceLevel
    package let source: DocSource
    /// One sentence: what a client must do to pass.
    package let title: String
    /// Runs the case on the client's current connection; throws ``CaseFailure`` when the client fails it.
    let body: @Sendable (ClientCaseContext) async throws(CaseFailure) -> ClientOutcome

    /// The group: the id's second part (`ping` in `client.ping.answers-server-ping`).
    package var group: String {
        let parts = id.split(separator: ".")
        return parts.count > 2 ? "client.\(parts[1])" : id
    }

    init(
        _ id: String, _ level: ConformanceLevel, _ source: DocSource, _ title: String,
        body: @escaping @Sendable (ClientCaseContext) async throws(CaseFailure) -> ClientOutcome
    ) {
        self.id = id
        self.level = level
        self.source = source
        self.title = title
        self.body = body
    }
}

/// How a client case ended when it did not fail (a failure is thrown as ``CaseFailure``).
package enum ClientOutcome: Sendable, Hashable {
    /// Passed; what was seen, with the frames that show it.
    case pass(String, evidence: [String] = [])
    /// The client never did what the case needs (no private channel, no client event), or the time ran out.
    case notObserved(String)
}
