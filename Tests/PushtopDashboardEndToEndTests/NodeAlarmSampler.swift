import Foundation
import Testing

/// Samples the dashboard's screen every 0.5 s for a while and keeps the screens on which the node watch raised an
/// alarm (a split roster, a node's API disagreeing, a missed canary, a node away): for the several-node tests.
/// (The members pane's own presence check is sampled by ``ChurnEndToEndTests``.)
enum NodeAlarmSampler {
    struct Result {
        var samples = 0
        var alarms: [String] = []
        var lastScreen = ""
    }

    static func isAlarm(_ screen: String) -> Bool {
        screen.contains(": on node ") || screen.contains("; not on ") || screen.contains("'s API")
            || screen.contains("missed canary")
            || screen.range(of: "  (missed|away) [0-9]", options: .regularExpression) != nil
    }

    /// Samples for `seconds` while `churn` runs, then stops it, and expects no alarm, and a canary latency on each
    /// of the `nodes` rows; then quits the dashboard.
    static func expectNoAlarm(
        _ tmux: TmuxSession, seconds: Double, churn: Task<Void, Never>, nodes: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let sampled = try await sample(tmux, seconds: seconds)
        let (samples, alarms, screen) = (sampled.samples, sampled.alarms, sampled.lastScreen)
        churn.cancel()
        #expect(
            alarms.isEmpty, "\(alarms.count) of \(samples) screens raised an alarm; first:\n\(alarms.first ?? "")",
            sourceLocation: sourceLocation)
        // The canary ran all along: every node shows a latency.
        #expect(
            screen.components(separatedBy: "canary p50").count >= nodes + 1, "\(screen)", sourceLocation: sourceLocation
        )
        tmux.send("q")
        _ = try await tmux.waitForExit()
    }

    /// A screen every 0.5 s for `seconds`, and on until there is one for each second at least: a capture is slow on
    /// a loaded machine, and a count of screens, not the clock, makes "no alarm" mean something.
    static func sample(_ tmux: TmuxSession, seconds: Double) async throws -> Result {
        var result = Result()
        let end = Date().addingTimeInterval(seconds)
        while Date() < end || result.samples < Int(seconds) {
            try await Task.sleep(for: .milliseconds(500))
            result.lastScreen = tmux.capture()
            result.samples += 1
            if isAlarm(result.lastScreen) { result.alarms.append(result.lastScreen) }
        }
        return result
    }
}

extension TmuxSession {
    /// `pushtop --node A --node B ...` (app `node-key`, no configuration) on `channel`, started in tmux at 220x42 and
    /// awaited until every node is connected; returns the session and that screen.
    static func nodesDashboard(_ nodes: [String], canaryInterval: Int, channel: String) async throws
        -> (tmux: TmuxSession, screen: String)
    {
        let environment = "env -u PUSHER_APP_KEY -u PUSHTOP_KEY -u PUSHTOP_PROFILE HOME=/nonexistent XDG_CONFIG_HOME= "
        let tmux = try TmuxSession(
            command: environment + DemoEndToEndTests.binary
                + nodes.map { " --node \($0)" }.joined()
                + " --key node-key --secret node-secret --app-id 1 --no-tls --canary-interval \(canaryInterval) \(channel)",
            columns: 220, rows: 42)
        do {
            let screen = try await tmux.waitFor("the \(nodes.count) nodes connected", timeout: 20) {
                $0.contains("\(nodes.count) nodes · A switches")
                    && $0.components(separatedBy: "● connected").count >= nodes.count + 1
            }
            return (tmux, screen)
        } catch {
            tmux.stop()
            throw error
        }
    }
}
