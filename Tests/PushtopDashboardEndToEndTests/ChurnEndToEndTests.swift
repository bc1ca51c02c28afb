import Foundation
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// The real dashboard on a real `pushtop serve --simulate --churn`: members of presence-lobby join and leave
/// several times a second while events flow. Sampled for a while (a minute with `PUSHTOP_SOAK=1`, 20 s in CI),
/// the screen never claims a difference
/// between the client's roster and the server's (there is none: the embedded server has no ghosts), and once
/// the churn stops the counts on screen are the server's (HTTP API).
@Suite(.serialized) struct ChurnEndToEndTests {
    /// How long the server churns; the screen is sampled for all but the first 10 s of it.
    static let churnSeconds = ObservationWindow.seconds(soak: 70, ci: 30)
    static let sampleSeconds = churnSeconds - 10

    /// The members pane's count and its presence-check word (`✓ server`, `checking`, `N differ`), from the
    /// pane's title.
    static func membersBadge(_ screen: String) -> (count: Int, check: String)? {
        guard let line = screen.split(separator: "\n").first(where: { $0.contains("3 Members · presence-lobby") })
        else {
            return nil
        }
        let words = line.split(whereSeparator: { $0 == " " || $0 == "─" || $0 == "━" || $0 == "┐" || $0 == "┓" })
        guard let dot = words.lastIndex(of: "·"), dot > 0, let count = Int(words[dot - 1]) else { return nil }
        return (count, words[(dot + 1)...].joined(separator: " "))
    }

    /// A screen that claims a difference between the rosters.
    static func isAlarm(_ screen: String) -> Bool {
        screen.contains("ghost: not on the server") || screen.contains("missing: on the server only")
            || screen.contains(" differ")
    }

    @Test func aMinuteOfChurnRaisesNoFalseAlarmAndTheCountsAgreeWithTheServer() async throws {
        try #require(TmuxSession.isAvailable, "tmux is needed for the end-to-end tests")
        let binary = DemoEndToEndTests.binary
        let server = try await ServeNode.start(
            key: "pushtop-key", secret: "pushtop-secret", appID: "1",
            extra: ["--simulate", "--churn", "20", "--churn-for", "\(Int(Self.churnSeconds))", "--event-rate", "50"])
        defer { server.process.signal(SIGTERM) }
        let port = server.port
        let started = Date()

        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-churn-\(UInt32.random(in: 0...UInt32.max))"
        ).path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let dashboard = try TmuxSession(
            command:
                "env HOME=\(home) XDG_CONFIG_HOME= \(binary) --key pushtop-key --host 127.0.0.1 --port \(port) --no-tls --secret pushtop-secret --app-id 1 --user-id watcher presence-lobby ticker"
        )
        defer { dashboard.stop() }
        try await dashboard.waitFor("the roster and a first answer of the presence check", timeout: 30) { screen in
            Self.membersBadge(screen).map { $0.check.contains("server") || $0.check.contains("checking") } == true
        }

        // The churn, the screen sampled every 0.5 s: 2 a second on an idle machine, fewer when each capture is slow;
        // on past the window until there are two thirds of that (40 in a minute), so that "no alarm" means as much
        // on a loaded machine.
        var samples = 0, alarms = 0, agreeing = 0, checking = 0, counts: Set<Int> = []
        var firstAlarm: String?
        let begin = Date()
        let end = begin.addingTimeInterval(Self.sampleSeconds)
        let enough = Int(Self.sampleSeconds * 2 / 3)
        while Date() < end || samples < enough {
            let screen = dashboard.capture()
            samples += 1
            if Self.isAlarm(screen) {
                alarms += 1
                if firstAlarm == nil { firstAlarm = screen }
            }
            if let badge = Self.membersBadge(screen) {
                counts.insert(badge.count)
                if badge.check.hasPrefix("✓ server") { agreeing += 1 }
                if badge.check.hasPrefix("checking") { checking += 1 }
            }
            // Every 0.5 s on the clock (a slow capture on a loaded machine does not stretch the period).
            let next = begin.addingTimeInterval(Double(samples) * 0.5)
            try await Task.sleep(for: .milliseconds(Int(max(0, next.timeIntervalSinceNow) * 1000)))
        }
        print(
            "churn: \(samples) screens sampled, \(alarms) false alarms, \(agreeing) ✓ server, \(checking) checking, \(counts.count) different member counts"
        )
        #expect(alarms == 0, "a false alarm:\n\(firstAlarm ?? "")")
        // The roster really churned, and the check kept answering.
        #expect(counts.count >= 5, "member counts seen: \(counts.sorted())")
        #expect(agreeing > 0)

        // Once the churn stops, the counts on screen are the server's.
        let api = PusherAPIClient(
            configuration: PusherAPIConfiguration(
                appID: "1", key: "pushtop-key", secret: "pushtop-secret", host: "127.0.0.1", port: port))
        let quiet = max(0, Self.churnSeconds + 2 - Date().timeIntervalSince(started))
        try await Task.sleep(for: .seconds(quiet))
        let users = try await api.users(in: "presence-lobby").json?["users"]?.arrayValue?.count
        let serverUsers = try #require(users)
        let screen = try await dashboard.waitFor("the members count to be the server's (\(serverUsers))", timeout: 20) {
            screen in
            Self.membersBadge(screen).map { $0.count == serverUsers && $0.check.hasPrefix("✓ server") } == true
        }
        #expect(!Self.isAlarm(screen))
        let info = try await api.channel("presence-lobby", info: ["user_count", "subscription_count"]).json
        let subscriptions = try #require(info?["subscription_count"]?.numberValue.map { Int($0) })
        #expect(info?["user_count"]?.numberValue.map { Int($0) } == serverUsers)
        // The channel browser's row for presence-lobby: the same subscribers and users, and ✓ (subscribed here).
        dashboard.send("b")
        try await dashboard.waitFor("the channel browser's presence-lobby row", timeout: 20) { screen in
            screen.split(separator: "\n").contains { line in
                let words = line.split(separator: " ")
                guard let i = words.firstIndex(of: "presence-lobby"), i + 4 < words.count else { return false }
                return words[i + 1] == "presence" && words[i + 2] == "\(subscriptions)"
                    && words[i + 3] == "\(serverUsers)"
                    && words[i + 4] == "✓"
            }
        }
        dashboard.send("q")
        #expect(try await dashboard.waitForExit().contains("EXIT=0"))
    }
}
