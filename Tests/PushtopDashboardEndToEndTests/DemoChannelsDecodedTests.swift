import Foundation
import Testing

/// The README's main job, as a new user runs it: `pushtop demo` for a while shows every channel's events decoded —
/// the encrypted one included — no error rows, and the presence members. CI runs this on the release binary
/// (PUSHTOP_BIN), where every event of `private-encrypted-vault` once showed as a "decryption error" (the server's
/// sealing was miscompiled, swiftlang/swift#90477).
@Suite(.serialized) struct DemoChannelsDecodedTests {
    /// The `Events` column of `channel`'s row in the Channels pane.
    static func events(of channel: String, _ screen: String) -> Int? {
        for line in screen.split(separator: "\n") where line.contains("│ \(channel) ") {
            let fields = line.split(separator: " ").map(String.init)
            guard let state = fields.firstIndex(of: "subscribed"), state + 1 < fields.count else { continue }
            return Int(fields[state + 1])
        }
        return nil
    }

    @Test func everyChannelsEventsAreDecodedAndTheMembersShown() async throws {
        let tmux = try DemoEndToEndTests.withEmptyHome("demo")
        defer { tmux.stop() }
        var errorRows: [String] = []
        // The simulator seals one vault event every 4 s: three of them, and the other channels meanwhile.
        let screen = try await tmux.waitFor("three decrypted vault events and traffic on every channel", timeout: 40) {
            errorRows += $0.split(separator: "\n").map(String.init).filter {
                $0.contains("decryption error") || $0.contains("malformed")
            }
            return (Self.events(of: "private-encrypted-vault", $0) ?? 0) >= 3
                && (Self.events(of: "ticker", $0) ?? 0) > 0
                && (Self.events(of: "chat", $0) ?? 0) > 0
        }
        #expect(errorRows.isEmpty, "error rows while the demo ran: \(Set(errorRows))")
        #expect(screen.contains("tester (me)"), "\(screen)")
        #expect(screen.contains("Members · presence-lobby"), "\(screen)")
        // A decrypted vault event in the log shows its plaintext.
        tmux.send("/")
        tmux.send("vault code", literal: true)
        tmux.send("Enter")
        // The filter matches the plaintext, so it only finds rows that were decrypted.
        try await tmux.waitFor("decrypted vault events in the log", timeout: 10) {
            $0.contains("/vault code (") && $0.contains("matches)") && $0.contains("private-encrypt… secret")
        }
        tmux.send("Escape")
        tmux.send("q")
        let after = try await tmux.waitForExit()
        #expect(after.contains("EXIT=0"))
    }
}
