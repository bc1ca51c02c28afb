import Synchronization

/// The fault rules in force and how often each was applied: the command line's from the start, the control
/// endpoint's as they are added and removed. Relays ask it per connection (close, stall, outage) and per frame
/// (refusals, event faults); with no rule of a kind, that question costs one atomic load.
package final class FaultBook: Sendable {
    /// A rule in force: its id (for the control endpoint), the rule, and when it was added.
    package struct Entry: Sendable, Hashable {
        package let id: Int
        package let rule: FaultRule
        package let added: ContinuousClock.Instant
        /// The rule as written, for rows.
        package var text: String { rule.description }
    }

    private struct State {
        var entries: [Entry] = []
        var applied: [Int: Int] = [:]
        var nextID = 1
    }

    private let state = Mutex(State())
    private let eventRules = Atomic<Bool>(false)
    private let subscriptionRules = Atomic<Bool>(false)
    private let outageRules = Atomic<Bool>(false)

    package init(_ rules: [FaultRule] = []) {
        for rule in rules { add(rule) }
    }

    /// Whether any drop, duplicate or delay rule is in force.
    @inline(__always) var hasEventRules: Bool { eventRules.load(ordering: .relaxed) }

    @discardableResult
    package func add(_ rule: FaultRule, now: ContinuousClock.Instant = .now) -> Entry {
        state.withLock { state in
            let entry = Entry(id: state.nextID, rule: rule, added: now)
            state.nextID += 1
            state.entries.append(entry)
            refreshFlags(state.entries)
            return entry
        }
    }

    /// Removes a rule; `false` when no rule has that id.
    package func remove(id: Int) -> Bool {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return false }
            state.entries.remove(at: index)
            refreshFlags(state.entries)
            return true
        }
    }

    /// The rules in force, each with how often it was applied.
    package var entries: [(entry: Entry, applied: Int)] {
        state.withLock { state in state.entries.map { ($0, state.applied[$0.id] ?? 0) } }
    }

    /// Every rule ever added with how often it was applied (for the report), in the order they were added.
    package var appliedCounts: [(text: String, applied: Int)] {
        state.withLock { state in
            state.entries.map { ($0.text, state.applied[$0.id] ?? 0) }
        }
    }

    private func refreshFlags(_ entries: [Entry]) {
        var events = false
        var subscriptions = false
        var outages = false
        for entry in entries {
            switch entry.rule.action {
            case .drop, .duplicate, .delay: events = true
            case .refuseSubscriptions: subscriptions = true
            case .outage: outages = true
            case .close, .stall: break
            }
        }
        eventRules.store(events, ordering: .relaxed)
        subscriptionRules.store(subscriptions, ordering: .relaxed)
        outageRules.store(outages, ordering: .relaxed)
    }

    func isActive(_ entry: Entry) -> Bool {
        state.withLock { state in state.entries.contains { $0.id == entry.id } }
    }

    /// Counts one application of `entry`; `false` when it has reached its `times` (or was removed).
    func consume(_ entry: Entry) -> Bool {
        state.withLock { state in consume(entry.id, &state) }
    }

    private func consume(_ id: Int, _ state: inout State) -> Bool {
        guard let entry = state.entries.first(where: { $0.id == id }) else { return false }
        let applied = state.applied[id] ?? 0
        let limit: Int?
        if case .refuseSubscriptions(let count) = entry.rule.action {
            limit = min(count, entry.rule.times ?? count)
        } else {
            limit = entry.rule.times
        }
        if let limit, applied >= limit { return false }
        state.applied[id] = applied + 1
        return true
    }

    /// The close and stall rules (relays arm them per connection).
    func connectionEntries() -> [Entry] {
        state.withLock { state in
            state.entries.filter {
                switch $0.rule.action {
                case .close, .stall: return true
                default: return false
                }
            }
        }
    }

    /// The refusal rule that takes this subscription, counted; `nil`: relay it.
    func refusal(channel: String, socketID: String?, userID: String?, connectionNumber: Int) -> Entry? {
        guard subscriptionRules.load(ordering: .relaxed) else { return nil }
        return state.withLock { state in
            for entry in state.entries {
                guard case .refuseSubscriptions = entry.rule.action,
                    entry.rule.matches(channel: channel, event: nil),
                    entry.rule.covers(socketID: socketID, userID: userID, connectionNumber: connectionNumber),
                    consume(entry.id, &state)
                else { continue }
                return entry
            }
            return nil
        }
    }

    /// The drop, duplicate or delay rule that takes this event, counted.
    func eventFault(channel: String?, event: String, socketID: String?, userID: String?, connectionNumber: Int)
        -> Entry?
    {
        state.withLock { state in
            for entry in state.entries {
                switch entry.rule.action {
                case .drop, .duplicate, .delay: break
                default: continue
                }
                guard entry.rule.matches(channel: channel, event: event),
                    entry.rule.covers(socketID: socketID, userID: userID, connectionNumber: connectionNumber),
                    consume(entry.id, &state)
                else { continue }
                return entry
            }
            return nil
        }
    }

    /// The outage in force now (counted as applied), if any: new connections are refused.
    func outage(now: ContinuousClock.Instant = .now) -> Entry? {
        guard outageRules.load(ordering: .relaxed) else { return nil }
        return state.withLock { state in
            for entry in state.entries {
                guard case .outage(let seconds) = entry.rule.action else { continue }
                let start = entry.added + .milliseconds(Int64(entry.rule.after * 1000))
                let end = start + .milliseconds(Int64(seconds * 1000))
                guard now >= start, now < end, consume(entry.id, &state) else { continue }
                return entry
            }
            return nil
        }
    }
}
