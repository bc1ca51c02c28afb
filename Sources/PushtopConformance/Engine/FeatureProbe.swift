import PusherProtocol
import Synchronization

/// Finds out once per run whether the server has an optional feature, so that every case of a missing feature says
/// `unsupported` for the same reason (and a feature that is there but broken fails its cases).
actor FeatureProbe {
    private var known: [ServerFeature: String?] = [:]
    private var running: [ServerFeature: Task<String?, Never>] = [:]
    /// Features known up front (webhooks: whether a listener was given and the server posted to it).
    init(preset: [ServerFeature: String?] = [:]) {
        known = preset
    }

    /// Why the server lacks `feature`, or `nil` when it has it.
    func missing(_ feature: ServerFeature, context: CaseContext) async -> String? {
        if let answer = known[feature] { return answer }
        if let task = running[feature] { return await task.value }
        let task = Task { await Self.detect(feature, context: context) }
        running[feature] = task
        let answer = await task.value
        known[feature] = answer
        return answer
    }

    /// What each feature shows when it is there. A server that answers with Reverb's `pusher:error` 4200 (or any
    /// refusal) or not at all has none of it.
    static func detect(_ feature: ServerFeature, context ctx: CaseContext) async -> String? {
        switch feature {
        case .userSignIn:
            guard let c = try? await ctx.connect() else { return "no connection to try pusher:signin on" }
            let answer = await ctx.signIn(c, user: ctx.user("probe"))
            switch answer {
            case .success: return nil
            case .refused(let how): return "pusher:signin with a valid signature was answered \(how)"
            case .silent: return "no answer to pusher:signin"
            }
        case .serverToUser:
            if let why = await ctx.supports(.userSignIn) { return why }
            let answer = await ctx.sendToUser(ctx.user("probe"), event: "conform-probe")
            return answer.status == 200 ? nil : "an event on #server-to-user-{id} was answered \(answer)"
        case .watchlist:
            if let why = await ctx.supports(.userSignIn) { return why }
            return nil
        case .terminateConnections:
            let answer = await ctx.terminateConnections(of: ctx.user("probe"))
            return answer.status == 200 ? nil : "POST /users/{id}/terminate_connections answered \(answer)"
        case .cacheChannels:
            guard let c = try? await ctx.connect() else { return "no connection" }
            let channel = ctx.channel("cache-", "probe")
            guard case .succeeded = await ctx.subscribe(c, channel) else { return "cannot subscribe to \(channel)" }
            return await ctx.event(c, PusherEventName.cacheMiss, channel: channel) == nil
                ? "no pusher:cache_miss on subscribing to an empty cache- channel" : nil
        case .subscriptionCount:
            guard let c = try? await ctx.connect() else { return "no connection" }
            let channel = ctx.channel("", "probe-count")
            guard case .succeeded = await ctx.subscribe(c, channel) else { return "cannot subscribe to \(channel)" }
            return await ctx.event(c, PusherEventName.subscriptionCount, channel: channel) == nil
                ? "no pusher_internal:subscription_count after subscribing (Pusher sends it when the app enables it)"
                : nil
        case .encryptedChannels:
            guard let c = try? await ctx.connect() else { return "no connection" }
            let channel = ctx.channel("private-encrypted-", "probe")
            switch await ctx.subscribe(c, channel) {
            case .succeeded: return nil
            case .refused(let frame):
                return "a signed private-encrypted- subscription was refused: \(SubscribeAnswer.describe(frame))"
            case .silent: return "no answer to a private-encrypted- subscription"
            }
        case .webhooks:
            return "no webhook listener (--webhook-listen)"
        }
    }
}

/// Counts the billable messages a run caused: events published and messages received, pings and pongs aside.
final class TrafficCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add(_ n: Int) { count.wrappingAdd(n, ordering: .relaxed) }
    var total: Int { count.load(ordering: .relaxed) }
}
