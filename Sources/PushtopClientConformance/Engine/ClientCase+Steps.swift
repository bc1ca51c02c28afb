import PushtopConformance

/// The first step most client cases share, taken by the engine: find the client's settled connection, or the
/// reconnection after a close, and judge the case "not observed" when there is none. The case's body then starts
/// from what it judges.
extension ClientCase {
    /// The phrase of a case that found no client to judge.
    static let noConnection = "no client connection was open and settled (connect the client to the proxy)"

    /// A case judged on the client's settled connection; not observed when no client is connected.
    init(
        _ id: String, _ level: ConformanceLevel, _ source: DocSource, _ title: String,
        onConnection body:
            @escaping @Sendable (ClientCaseContext, WireConnection) async throws(CaseFailure) ->
            ClientOutcome
    ) {
        self.init(id, level, source, title) { context throws(CaseFailure) in
            guard let connection = await context.settledConnection() else { return .notObserved(Self.noConnection) }
            return try await body(context, connection)
        }
    }

    /// A case judged on the client's reconnection after the judge closes its connection with `code` (caused once,
    /// shared by every case that passes the same code; see ``ClientCaseContext/reconnection(after:window:name:)``);
    /// not observed when no client is connected.
    init(
        _ id: String, _ level: ConformanceLevel, _ source: DocSource, _ title: String,
        afterClose code: Int, window: Duration,
        body: @escaping @Sendable (ClientCaseContext, Reconnection) async throws(CaseFailure) -> ClientOutcome
    ) {
        self.init(id, level, source, title) { context throws(CaseFailure) in
            guard let episode = await context.reconnection(after: code, window: window) else {
                return .notObserved(Self.noConnection)
            }
            return try await body(context, episode)
        }
    }
}
