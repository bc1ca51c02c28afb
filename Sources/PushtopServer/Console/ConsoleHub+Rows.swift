import PusherProtocol

/// The rows of the debug feed that the HTTP API makes.
extension ConsoleHub {
    /// One `api_message` row per published event: its channels, its data (cut at ``ConsoleRowData/maxBytes``),
    /// the excluded `socket_id`, the caller and whether it came in a batch.
    func apiMessages(_ requests: [PublishRequest], batch: Bool, caller: String?) {
        guard isActive else { return }
        let now = ConsoleClock.nowMs()
        for request in requests {
            var row = ConsoleRow(type: .apiMessage, timeMs: now)
            row.channel = request.channels.first
            row.channels = request.channels
            row.event = request.name
            ConsoleRowData.fill(&row, request.data)
            row.excludedSocketID = request.excludedSocketID
            row.batch = batch
            row.remoteAddress = caller
            post(row)
        }
    }

    /// An `api_error` row: the status, the rule and the reason (a stale timestamp says by how much).
    func apiError(_ failure: APIFailure, method: String, path: String, caller: String?) {
        emit {
            var row = ConsoleRow(type: .apiError, timeMs: ConsoleClock.nowMs())
            row.status = failure.status
            row.rule = failure.rule
            row.reason = failure.detail.map { "\(failure.message) — \($0)" } ?? failure.message
            row.url = "\(method) \(path)"
            row.remoteAddress = caller
            return row
        }
    }
}
