/// The connection pane's rows with several nodes of one app (`--node`): a row per node (state, socket, events
/// per second, canary latency p50/p99 and misses; the selected node marked), then the presence splits the
/// nodes' rosters show (`alice: on node A only`).
enum NodeRowsView {
    /// Draws the rows; returns the rows used (with a blank row after them when there is room).
    static func draw(_ state: DashboardState, nodes: NodeState, in inner: Rect, into canvas: inout some Canvas) -> Int {
        let labelWidth = min(22, max(4, nodes.nodes.map { DisplayWidth.of($0) }.max() ?? 4) + 1)
        var used = 0
        for (i, app) in state.apps.enumerated() where used < inner.height {
            ConnectionPaneView.drawAppRow(
                app, selected: i == state.selectedApp, labelWidth: labelWidth,
                row: inner.row + used, in: inner, into: &canvas)
            used += 1
            // The node's canary on a line of its own: latency, misses and the newest problem.
            let node = nodes.nodes.indices.contains(i) ? nodes.nodes[i] : app.label
            guard nodes.canaryEnabled, used < inner.height else { continue }
            let text = canaryText(node: node, nodes: nodes)
            let drawn = canvas.draw(
                text, row: inner.row + used, column: inner.column + 3, maxWidth: inner.width - 4, role: .value)
            if let problem = nodes.lastProblem[node], 3 + drawn + 2 < inner.width - 1 {
                canvas.draw(
                    "  " + problem, row: inner.row + used, column: inner.column + 3 + drawn,
                    maxWidth: inner.width - 4 - drawn, role: .channelError)
            }
            used += 1
        }
        // Each split channel, then its members one a row: `alice: on node A only`.
        let channels = Set(nodes.splits.keys).union(nodes.apiDifferences.keys).sorted()
        let lines = channels.flatMap { channel in
            ["  \(channel):"] + (nodes.splits[channel] ?? []).map { "    \($0.text(nodes: nodes.nodes))" }
                + (nodes.apiDifferences[channel] ?? []).map { "    \($0)" }
        }
        for line in lines where used < inner.height {
            canvas.draw(line, row: inner.row + used, column: inner.column, maxWidth: inner.width, role: .channelError)
            used += 1
        }
        return used < inner.height - 2 ? used + 1 : used
    }

    /// `canary p50 X p99 Y  missed N  away N`.
    static func canaryText(node: String, nodes: NodeState) -> String {
        guard let tally = nodes.audit.tallies[node] else { return "canary -" }
        var text = "canary -"
        if let p50 = tally.latencies.percentile(50), let p99 = tally.latencies.percentile(99) {
            text = "canary p50 \(Format.millis(p50 / 1000)) p99 \(Format.millis(p99 / 1000))"
        }
        if tally.lost > 0 { text += "  missed \(tally.lost)" }
        if tally.away > 0 { text += "  away \(tally.away)" }
        if let seq = nodes.lastMissed[node], tally.lost + tally.away > 0 { text += " (last #\(seq))" }
        return text
    }
}
