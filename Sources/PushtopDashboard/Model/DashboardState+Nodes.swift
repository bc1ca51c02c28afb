import PusherProtocol

extension DashboardState {
    /// Watches the apps as nodes of one app (`--node`): call after ``setApps(_:)``, before anything arrives.
    public mutating func setNodes(_ state: NodeState) {
        nodes = state
        needsDraw = true
        if !state.canaryEnabled {
            setStatus("no cross-node canary: it publishes through the HTTP API (give --secret and --app-id)")
        }
    }

    /// Whether the apps are nodes of one app.
    public var isMultiNode: Bool { nodes != nil }

    /// Gives a node's events to the node watch; returns those to show.
    mutating func takeNodeEvents(_ batch: [ClientEvent], app: Int) -> [ClientEvent] {
        guard var n = nodes else { return batch }
        let (shown, outcome) = n.take(batch, app: app, now: now)
        nodes = n
        applyNodeOutcome(outcome)
        return shown
    }

    /// The node watch's clock step.
    mutating func nodeTick() -> [Effect] {
        guard var n = nodes, replay == nil else { return [] }
        let outcome = n.tick(now: now, rosters: nodeRosters)
        nodes = n
        return applyNodeOutcome(outcome)
    }

    /// A node request's answer.
    mutating func nodeAnswer(_ answer: NodeAnswer) -> [Effect] {
        guard var n = nodes else { return [] }
        let outcome = n.answer(answer, rosters: nodeRosters)
        nodes = n
        return applyNodeOutcome(outcome)
    }

    /// The user ids each node's connection holds, per presence channel.
    var nodeRosters: [[String: Set<String>]] {
        apps.map { app in
            app.rosters.mapValues { roster in Set(roster.rows.filter { $0.leftAt == nil }.map(\.member.userID)) }
        }
    }

    @discardableResult
    private mutating func applyNodeOutcome(_ outcome: NodeState.Outcome) -> [Effect] {
        for note in outcome.notes where apps.indices.contains(note.app) {
            log.append(
                app: note.app, time: now, kind: note.isError ? .error : .info, channel: "", event: "nodes",
                dataText: note.text)
            needsDraw = true
        }
        return outcome.requests.map(Effect.nodes)
    }
}
