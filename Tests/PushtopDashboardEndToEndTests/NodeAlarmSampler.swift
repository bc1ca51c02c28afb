import Foundation

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

    static func sample(_ tmux: TmuxSession, seconds: Double) async throws -> Result {
        var result = Result()
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            try await Task.sleep(for: .milliseconds(500))
            result.lastScreen = tmux.capture()
            result.samples += 1
            if isAlarm(result.lastScreen) { result.alarms.append(result.lastScreen) }
        }
        return result
    }
}
