import PusherProtocol
import PushtopKit

extension NodeState {
    /// What one step of the nodes' watch produced: requests for the runner, and lines for the log (by app).
    public struct Outcome: Sendable {
        public var requests: [NodeRequest] = []
        /// (app index, text, is an error) for the log.
        public var notes: [(app: Int, text: String, isError: Bool)] = []
    }

    /// Takes a node's client events: the canary channel's go to the audit (they are not shown as the app's
    /// channels and events); member events are noted for the roster comparison. Returns the events to show.
    public mutating func take(_ batch: [ClientEvent], app: Int, now: Double) -> (shown: [ClientEvent], outcome: Outcome)
    {
        guard nodes.indices.contains(app) else { return (batch, Outcome()) }
        let node = nodes[app]
        var shown: [ClientEvent] = []
        var outcome = Outcome()
        shown.reserveCapacity(batch.count)
        for event in batch {
            switch event {
            case .event(let e) where e.channel == canaryChannel:
                guard e.name == Self.canaryEvent, let seq = e.data?["seq"]?.intValue else { continue }
                note(
                    audit.received(
                        seq: seq, via: e.data?["via"]?.stringValue, node: node,
                        at: e.receivedAt > 0 ? e.receivedAt : now), into: &outcome)
            case .subscribed(let channel, let presence) where channel == canaryChannel:
                _ = presence
                note(audit.availability(node: node, available: true, at: now), into: &outcome)
            case .subscribing(let channel) where channel == canaryChannel:
                continue
            case .unsubscribed(let channel) where channel == canaryChannel:
                continue
            case .subscriptionCount(let channel, _) where channel == canaryChannel:
                continue
            case .state(let change):
                if change.current != .connected {
                    note(audit.availability(node: node, available: false, at: now), into: &outcome)
                }
                shown.append(event)
            case .subscribed(let channel, _):
                // The node's roster of this channel starts over: so do its comparisons.
                apiAgreements[channel]?[app] = nil
                if app == 0 {
                    agreements[channel] = nil
                } else {
                    agreements[channel]?[app] = nil
                }
                shown.append(event)
            case .memberAdded(let channel, let member), .memberRemoved(let channel, let member):
                for i in agreements[channel]?.keys.sorted() ?? [] {
                    agreements[channel]![i]!.memberChanged(member.userID)
                }
                apiAgreements[channel]?[app]?.memberChanged(member.userID)
                shown.append(event)
            default:
                shown.append(event)
            }
        }
        return (shown, outcome)
    }

    /// The clock: publishes a canary when one is due, settles the canaries whose grace time is over, and
    /// compares the nodes' rosters every interval. `rosters[app][channel]` is the user ids a node's connection
    /// holds.
    public mutating func tick(now: Double, rosters: [[String: Set<String>]]) -> Outcome {
        var outcome = Outcome()
        if canaryEnabled, !nodes.isEmpty {
            // The first canary once every node is subscribed (or 2 s after the first tick, whatever the nodes do).
            if nextCanaryAt == nil {
                let start = firstTickAt ?? now
                firstTickAt = start
                if nodes.allSatisfy({ audit.tallies[$0]?.isAvailable ?? false }) || now >= start + min(interval, 2) {
                    nextCanaryAt = now
                }
            }
            if let due = nextCanaryAt, now >= due {
                let seq = nextSeq
                nextSeq += 1
                let via = (seq - 1) % nodes.count
                audit.published(seq: seq, via: nodes[via], at: now)
                let data = #"{"seq":\#(seq),"via":"\#(nodes[via])"}"#
                outcome.requests.append(
                    .publishCanary(app: via, channel: canaryChannel, event: Self.canaryEvent, data: data, seq: seq))
                nextCanaryAt = max(due + interval, now + interval / 2)
            }
            note(audit.check(now: now), into: &outcome)
        }
        let compareAt = nextCompareAt ?? now
        nextCompareAt = compareAt
        if now >= compareAt {
            nextCompareAt = now + interval
            compareRosters(rosters, into: &outcome)
            requestAPIRosters(rosters, into: &outcome)
        }
        return outcome
    }

    /// An answer from the runner; `rosters` as for ``tick(now:rosters:)``.
    public mutating func answer(_ answer: NodeAnswer, rosters: [[String: Set<String>]] = []) -> Outcome {
        var outcome = Outcome()
        switch answer {
        case .presenceUsers(let app, let channel, let userIDs, let error):
            guard nodes.indices.contains(app), var agreement = apiAgreements[channel]?[app] else { break }
            guard let userIDs, error == nil, rosters.indices.contains(app), let local = rosters[app][channel] else {
                agreement.requestFailed()
                apiAgreements[channel]![app] = agreement
                break
            }
            agreement.answered(remote: Set(userIDs), local: local)
            apiAgreements[channel]![app] = agreement
            noteAPIDifferences(channel, into: &outcome)
        case .canaryFailed(let app, let seq, let message):
            audit.cancel(seq: seq)
            let node = nodes.indices.contains(app) ? nodes[app] : "?"
            outcome.notes.append((app, "canary \(seq) not published via \(node): \(message)", true))
        }
        return outcome
    }

    /// Asks every node's HTTP API for the presence channels its connection holds (answered with
    /// ``answer(_:rosters:)``), when the API is known.
    private mutating func requestAPIRosters(_ rosters: [[String: Set<String>]], into outcome: inout Outcome) {
        guard canaryEnabled else { return }
        for (app, channels) in rosters.enumerated() where nodes.indices.contains(app) {
            for channel in channels.keys.sorted() where channel != canaryChannel {
                var agreement = apiAgreements[channel]?[app] ?? RosterAgreement<String>()
                guard !agreement.isAwaitingAnswer else { continue }
                agreement.requestSent()
                apiAgreements[channel, default: [:]][app] = agreement
                outcome.requests.append(.presenceUsers(app: app, channel: channel))
            }
        }
    }

    /// The confirmed differences between each node's connection and its HTTP API for `channel`.
    private mutating func noteAPIDifferences(_ channel: String, into outcome: inout Outcome) {
        var lines: [String] = []
        for (app, agreement) in (apiAgreements[channel] ?? [:]).sorted(by: { $0.key < $1.key }) {
            for user in agreement.ghosts.sorted() {
                lines.append("\(user): not in node \(nodes[app])'s API")
            }
            for user in agreement.missing.sorted() {
                lines.append("\(user): only in node \(nodes[app])'s API")
            }
        }
        let before = Set(apiDifferences[channel] ?? [])
        for line in lines where !before.contains(line) {
            let app = nodes.firstIndex { line.contains("node \($0)'s") } ?? 0
            outcome.notes.append((app, "\(channel): \(line)", true))
        }
        apiDifferences[channel] = lines.isEmpty ? nil : lines
    }

    private mutating func compareRosters(_ rosters: [[String: Set<String>]], into outcome: inout Outcome) {
        guard nodes.count > 1, let first = rosters.first else { return }
        let channels = Set(rosters.flatMap(\.keys)).filter { $0 != canaryChannel }
        for channel in channels.sorted() {
            guard let local = first[channel] else {
                agreements[channel] = nil
                splits[channel] = nil
                continue
            }
            var confirmed: Set<String> = []
            for i in 1..<min(nodes.count, rosters.count) {
                guard let remote = rosters[i][channel] else {
                    agreements[channel]?[i] = nil
                    continue
                }
                var agreement = agreements[channel]?[i] ?? RosterAgreement<String>()
                agreement.requestSent()
                agreement.answered(remote: remote, local: local)
                confirmed.formUnion(agreement.ghosts)
                confirmed.formUnion(agreement.missing)
                agreements[channel, default: [:]][i] = agreement
            }
            let present = nodes.indices.filter { rosters.indices.contains($0) && rosters[$0][channel] != nil }
            let now = confirmed.sorted().map { user in
                RosterSplit(userID: user, on: present.filter { rosters[$0][channel]!.contains(user) }.map { nodes[$0] })
            }
            let before = Set(splits[channel] ?? [])
            for split in now where !before.contains(split) {
                let app = nodes.firstIndex(of: split.on.first ?? "") ?? 0
                outcome.notes.append((app, "\(channel): \(split.text(nodes: present.map { nodes[$0] }))", true))
            }
            splits[channel] = now.isEmpty ? nil : now
        }
        for channel in Array(splits.keys) where !channels.contains(channel) { splits[channel] = nil }
    }

    private mutating func note(_ findings: [CanaryAudit.Finding], into outcome: inout Outcome) {
        for finding in findings {
            switch finding {
            case .missed(let node, let seq, let via, let away):
                lastMissed[node] = seq
                outcome.notes.append(
                    (
                        index(node),
                        "node \(node) missed canary \(seq) (published via \(via))"
                            + (away ? " while reconnecting" : ""), !away
                    ))
            case .duplicated(let node, let seq):
                lastProblem[node] = "canary \(seq) twice"
                outcome.notes.append((index(node), "node \(node) received canary \(seq) twice", true))
            case .landedAfterError(let node, let seq, let via):
                outcome.notes.append(
                    (index(node), "node \(node): canary \(seq) arrived from its failed publish via \(via)", false))
            case .late(let node, let seq, let ms):
                outcome.notes.append(
                    (index(node), "node \(node): canary \(seq) arrived late (\(Format.millis(ms / 1000)))", false))
            case .stalled(let node, let seconds):
                lastProblem[node] = "no canary for \(Int(seconds)) s"
                outcome.notes.append((index(node), "node \(node) has delivered no canary for \(Int(seconds)) s", true))
            case .resumed(let node), .reconnected(let node):
                lastProblem[node] = nil
            case .reordered, .wentAway:
                break
            }
        }
    }

    private func index(_ node: String) -> Int { nodes.firstIndex(of: node) ?? 0 }
}
