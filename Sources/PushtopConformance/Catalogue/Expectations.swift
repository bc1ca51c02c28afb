import PusherProtocol

/// A failure with what was expected and what came.
func failure(_ expected: String, _ got: String, _ ctx: CaseContext? = nil) -> CaseFailure {
    CaseFailure(expected: expected, got: got, evidence: ctx?.evidence() ?? [])
}

/// Passes when a subscription was refused (and the client was told), naming how; fails when it succeeded or nothing
/// was said.
func refused(_ answer: SubscribeAnswer, _ what: String, _ ctx: CaseContext) throws -> CaseOutcome {
    switch answer {
    case .refused(let frame): return .pass("refused: \(SubscribeAnswer.describe(frame))")
    case .succeeded: throw failure("\(what) to be refused", "pusher_internal:subscription_succeeded", ctx)
    case .silent:
        throw failure(
            "\(what) to be refused with pusher:error or pusher:subscription_error",
            "no answer within \(ctx.patience) s (a client cannot tell a refusal from a slow server)", ctx)
    }
}

/// Passes on a 4xx, naming the status the server chose and the one Pusher documents.
func clientError(_ answer: APIAnswer, _ what: String, documented: Int) throws -> CaseOutcome {
    guard (400..<500).contains(answer.status) else {
        throw failure("\(what) to be refused with HTTP \(documented) (or another 4xx)", answer.description)
    }
    let choice = answer.status == documented ? "as Pusher" : "Pusher answers \(documented)"
    return .pass("HTTP \(answer.status) (\(choice))\(answer.body.isEmpty ? "" : ": \(answer.body.prefix(100))")")
}

/// Fails unless the answer is 200.
func ok(_ answer: APIAnswer, _ what: String) throws {
    guard answer.status == 200 else { throw failure("HTTP 200 for \(what)", answer.description) }
}

/// Fails unless `condition` holds.
func check(
    _ condition: Bool, _ expected: @autoclosure () -> String, _ got: @autoclosure () -> String,
    _ ctx: CaseContext? = nil
) throws {
    if !condition { throw failure(expected(), got(), ctx) }
}

/// The code of a `pusher:error` frame or of a close frame.
func errorCode(_ frame: ProbeFrame) -> Int? {
    frame.errorCode
}

extension CaseContext {
    /// A connection subscribed to `channel` (signed as needed).
    func subscribed(_ channel: String, node: Int = 0, user: String? = nil, info: JSONValue? = nil) async throws
        -> ProbeConnection
    {
        let c = try await connect(node: node)
        try await mustSubscribe(c, channel, user: user, info: info)
        return c
    }

    /// One user on two connections subscribed to presence `channel`, as with two tabs open: one member, two
    /// subscriptions. The connections come back in the order they subscribed.
    @discardableResult
    func subscribedTwice(_ channel: String, user: String) async throws -> (ProbeConnection, ProbeConnection) {
        let first = try await subscribed(channel, user: user)
        return (first, try await subscribed(channel, user: user))
    }

    /// The `pusher_internal:subscription_succeeded` frame a new connection gets for `channel` (signed as needed).
    @discardableResult
    func subscriptionSucceeded(_ channel: String, node: Int = 0, user: String? = nil, info: JSONValue? = nil)
        async throws -> ProbeFrame
    {
        let c = try await connect(node: node)
        return try await mustSubscribe(c, channel, user: user, info: info)
    }

    /// Fails unless the server answers `connection` (ping → pong) and still accepts new connections and delivers an
    /// event to `sentinel`, a connection subscribed to `channel` before the hostile input.
    func stillServing(_ sentinel: ProbeConnection, channel: String) async throws -> String {
        try await barrier([sentinel], channel: channel)
        let fresh = try await connect()
        _ = fresh
        return "other connections were still served and new ones accepted"
    }

    /// The first frame from `index` on that refuses something: a `pusher:error`, a received close frame, or the end.
    func refusal(on connection: ProbeConnection, from index: Int, timeout: Double? = nil) async -> ProbeFrame? {
        await connection.socket.waitFor(timeout ?? patience, from: index) { $0.isRefusal }
    }
}
