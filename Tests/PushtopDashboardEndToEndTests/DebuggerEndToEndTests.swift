import Foundation
import PushtopTestSupport
import Testing

/// The debugger views in the real binaries under tmux: the wire inspector and record/replay on the preview's
/// synthetic feed, the auth inspector and `pushtop replay` on the demo's real server.
@Suite(.serialized) struct DebuggerEndToEndTests {
    func preview(_ arguments: String) throws -> TmuxSession {
        try #require(TmuxSession.isAvailable, "tmux is needed for the end-to-end tests (scripts/install-deps)")
        return try TmuxSession(command: "\(previewBinary()) --no-mouse --save-dir /tmp \(arguments)")
    }

    func pushtop(_ arguments: String) throws -> TmuxSession {
        try DemoEndToEndTests.withEmptyHome(arguments)
    }

    func temporaryFile(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-\(UInt32.random(in: 0...UInt32.max))-\(name)"
        ).path
    }

    /// The event log pane's rows (right of its left border), which depend only on what was received.
    func logRows(_ screen: String) -> [String] {
        screen.split(separator: "\n").compactMap { row -> String? in
            guard let i = row.firstIndex(of: "┃") else { return nil }
            return String(row[i...])
        }
    }

    @Test func wireInspectorShowsFramesHidesPingsAndOpensOne() async throws {
        let tmux = try preview("--rate 20")
        defer { tmux.stop() }
        try await tmux.waitFor(text: "price-update")
        tmux.send("w")
        var screen = try await tmux.waitFor("frames both ways") {
            $0.contains("Wire inspector") && $0.contains("↑ out") && $0.contains("↓ in")
                && $0.contains("pusher:subscribe")
        }
        #expect(screen.contains("pusher:connection_established"))
        try await tmux.waitFor("a ping", timeout: 15) { $0.contains("pusher:ping") }
        tmux.send("p")
        screen = try await tmux.waitFor("pings hidden") { $0.contains("pings hidden") }
        #expect(!screen.contains("pusher:ping"))
        tmux.send("/")
        tmux.send("e:price", literal: true)
        tmux.send("Enter")
        try await tmux.waitFor(text: "/e:price (")
        tmux.send("k")
        tmux.send("Enter")
        // The whole popup (tmux may capture between two chunks of one redraw).
        try await tmux.waitFor("the frame's detail") {
            $0.contains("Frame #") && $0.contains("frame (JSON)") && $0.contains("\"event\": \"price-update\"")
                && $0.contains("data (parsed)")
        }
        tmux.send("Escape")
        tmux.send("Escape")
        tmux.send("Escape")
        try await tmux.waitFor("the panes") { $0.contains("4 Event log") && !$0.contains("Wire inspector") }
        // The event detail shows the exact frame.
        tmux.send("k")
        tmux.send("Enter")
        screen = try await tmux.waitFor("the event detail") { $0.contains("Event #") }
        #expect(screen.contains("frame") && !screen.contains("rebuilt from the event"))
        tmux.send("Escape")
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))
    }

    @Test func aRecordedSessionReplaysToTheSameScreens() async throws {
        let file = temporaryFile("session.jsonl")
        defer { try? FileManager.default.removeItem(atPath: file) }
        // Live: no event stream, only what the keyboard does and the roster's changes every 3 s.
        let live = try preview("--rate 0 --record \(file)")
        defer { live.stop() }
        try await live.waitFor(text: "● REC")
        live.send("s")
        live.send("news", literal: true)
        live.send("Enter")
        live.send("s")
        live.send("private-forbidden", literal: true)
        live.send("Enter")
        try await live.waitFor("the subscriptions") {
            $0.contains("news") && $0.contains("HTTP 403: auth endpoint refused")
        }
        try await live.waitFor("a member to join", timeout: 15) { $0.contains("member added") }
        // Stop recording just after a roster change (they come every 3 s): the screen before and after stopping
        // must agree, and the recording ends with it.
        let changes = { (s: String) in s.components(separatedBy: "member ").count }
        let seen = changes(live.capture())
        let before = logRows(try await live.waitFor("the next roster change", timeout: 15) { changes($0) > seen })
        live.send("r")
        let after = try await live.waitFor("recording to stop") { !$0.contains("● REC") }
        let liveRows = logRows(after)
        #expect(liveRows == before, "the screen changed while recording stopped")
        try #require(!liveRows.isEmpty, "the screen kept changing while recording stopped")
        live.send("q")
        #expect(try await live.waitForExit().contains("EXIT=0"))

        let replay = try preview("--replay \(file) --speed 16")
        defer { replay.stop() }
        let screen = try await replay.waitFor("the end of the replay", timeout: 30) { $0.contains("■ REPLAY") }
        #expect(logRows(screen) == liveRows, "replayed:\n\(screen)\nlive:\n\(liveRows.joined(separator: "\n"))")
        // The auth inspector and the wire inspector replay too.
        replay.send("2")
        replay.send("G")
        replay.send("a")
        try await replay.waitFor(text: "Auth inspector · private-forbidden")
        replay.send("Escape")
        replay.send("w")
        try await replay.waitFor(text: "pusher:connection_established")
        // Jump back to the start: the state is rebuilt from the recording.
        replay.send("w")
        replay.send("J")
        replay.send("0", literal: true)
        replay.send("Enter")
        try await replay.waitFor("the start") { !$0.contains("■ REPLAY") || $0.contains("0:00/") }
        replay.send("q")
        #expect(try await replay.waitForExit().contains("EXIT=0"))
    }

    @Test func authInspectorOnTheDemoShowsTheEndpointAndAMatchingSignature() async throws {
        let file = temporaryFile("demo.jsonl")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let tmux = try pushtop("demo --record \(file)")
        defer { tmux.stop() }
        try await tmux.waitFor("the demo", timeout: 20) {
            $0.contains("tester (me)") && $0.contains("private-encrypted-vault")
        }
        tmux.send("2")
        tmux.send("g")
        tmux.send("j")
        tmux.send("j")
        tmux.send("a")
        let screen = try await tmux.waitFor("the auth inspector") {
            $0.contains("Auth inspector · private-encrypted-vault")
        }
        #expect(screen.contains("/pusher/auth"))
        #expect(screen.contains("HTTP status  200"))
        #expect(screen.contains("✓ signature matches"))
        #expect(screen.contains("shared key   received"))
        #expect(screen.contains(":private-encrypted-vault"))
        tmux.send("Right")
        let presence = try await tmux.waitFor("the presence channel's trace") {
            $0.contains("Auth inspector · presence-lobby")
        }
        #expect(presence.contains(#""user_id":"tester""#))
        #expect(presence.contains("✓ signature matches"))
        tmux.send("Escape")
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))

        // The recording holds the authorizations, never their secrets.
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix(#"{"type":"recording""#))
        #expect(text.contains(#""kind":"authorization""#))
        #expect(text.contains(":<redacted>"))
        // Every shared_secret value (in an escaped response body or not) is the redaction marker.
        for marker in [#"shared_secret\":\""#, #""shared_secret":""#] {
            var rest = Substring(text)
            while let r = rest.range(of: marker) {
                #expect(rest[r.upperBound...].hasPrefix("<redacted>"), "a shared secret in: \(rest.prefix(200))")
                rest = rest[r.upperBound...]
            }
        }
        #expect(text.contains(#"shared_secret\":\"<redacted>"#))
        #expect(!text.contains("pushtop-secret"))

        // And `pushtop replay` opens it without network.
        let replay = try pushtop("replay --speed 16 \(file)")
        defer { replay.stop() }
        let replayed = try await replay.waitFor("the replay's end", timeout: 30) { $0.contains("■ REPLAY") }
        #expect(replayed.contains("private-encrypted-vault") && replayed.contains("presence-lobby"))
        replay.send("q")
        #expect(try await replay.waitForExit().contains("EXIT=0"))
    }

    @Test func channelBrowserAndPresenceCheckAgainstTheDemoServer() async throws {
        let file = temporaryFile("browser.jsonl")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let tmux = try pushtop("demo --record \(file)")
        defer { tmux.stop() }
        try await tmux.waitFor("the demo", timeout: 20) {
            $0.contains("tester (me)") && $0.contains("private-encrypted-vault")
        }
        // The server's roster agrees with the client's.
        try await tmux.waitFor("the presence check", timeout: 15) { $0.contains("· ✓ server") }
        tmux.send("b")
        let screen = try await tmux.waitFor("the occupied channels", timeout: 15) {
            $0.contains("Channel browser") && $0.contains("presence-lobby") && $0.contains("ticker")
                && $0.contains("updated")
        }
        let lobby = screen.split(separator: "\n").first { $0.contains("presence-lobby") && $0.contains("presence") }
        #expect(lobby?.contains("✓") == true, "\(screen)")
        tmux.send("o")
        try await tmux.waitFor(text: "sorted by subscribers")
        tmux.send("Escape")
        try await tmux.waitFor("the panes") { $0.contains("4 Event log") }
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))

        // The HTTP answers were recorded: the replay shows the presence check and the channel browser too.
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains(#""type":"api""#))
        let replay = try pushtop("replay --speed 16 \(file)")
        defer { replay.stop() }
        try await replay.waitFor("the replay's end with the presence check", timeout: 30) {
            $0.contains("■ REPLAY") && $0.contains("· ✓ server")
        }
        replay.send("b")
        let replayed = try await replay.waitFor("the recorded channel list") {
            $0.contains("Channel browser") && $0.contains("presence-lobby") && $0.contains("ticker")
        }
        #expect(!replayed.contains("needs the app id and secret"))
        replay.send("q")
        #expect(try await replay.waitForExit().contains("EXIT=0"))
    }

    @Test func channelBrowserSubscribesAndPresenceCheckMarksGhostsInThePreview() async throws {
        let tmux = try preview("--rate 0")
        defer { tmux.stop() }
        try await tmux.waitFor("the ghost and the missing member", timeout: 15) {
            $0.contains("ghost: not on the server") && $0.contains("? mallory missing")
        }
        tmux.send("b")
        try await tmux.waitFor(text: "news-room")
        tmux.send("/")
        tmux.send("news", literal: true)
        tmux.send("Enter")
        tmux.send("Enter")
        tmux.send("Escape")
        tmux.send("Escape")
        try await tmux.waitFor("news-room subscribed") { screen in
            screen.split(separator: "\n").contains {
                $0.contains("news-room") && $0.contains("subscribed") && !$0.contains("subscribing")
            }
        }
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))
    }

    @Test func watchRecordsTheSameFormatAndReplayOpensIt() async throws {
        let file = temporaryFile("watch.jsonl")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let server = try await ServeNode.start(
            key: "pushtop-key", secret: "pushtop-secret", appID: "1", extra: ["--simulate"])
        defer { server.process.signal(SIGTERM) }
        let port = server.port
        let watch = try pushtop(
            "watch --stdin --record \(file) --key pushtop-key --host 127.0.0.1 --port \(port) --no-tls --secret pushtop-secret --user-id rec ticker presence-lobby"
        )
        defer { watch.stop() }
        try await watch.waitFor("events on stdout", timeout: 20) {
            $0.contains(#""type":"event""#) && $0.contains(#""type":"subscribed","channel":"presence-lobby""#)
        }
        watch.send("C-d")  // end of stdin: watch disconnects and exits 0
        let exited = try await watch.waitForExit(timeout: 30)
        #expect(exited.contains("EXIT=0"), "\(exited)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix(#"{"type":"recording""#) && text.contains(#""source":"pushtop watch""#))
        #expect(text.contains(#""kind":"event""#) && text.contains(#""channel":"ticker""#))
        #expect(text.contains(#""kind":"authorization""#) && text.contains("local secret"))
        #expect(!text.contains("pushtop-secret"))
        let replay = try pushtop("replay --speed 16 \(file)")
        defer { replay.stop() }
        let screen = try await replay.waitFor("the replay's end", timeout: 30) { $0.contains("■ REPLAY") }
        #expect(screen.contains("ticker") && screen.contains("presence-lobby"))
        replay.send("q")
        #expect(try await replay.waitForExit().contains("EXIT=0"))
    }

    @Test func serveTellsTeammatesWhichChannelsToOpen() async throws {
        let server = try pushtop("serve --simulate --port 0")
        defer { server.stop() }
        let screen = try await server.waitFor("the teammates line", timeout: 20) { $0.contains("simulating:") }
        let joined = screen.replacingOccurrences(of: "\n", with: "")
        #expect(joined.contains("--user-id NAME ticker chat private-encrypted-vault presence-lobby"), "\(screen)")
    }

    @Test func aDamagedRecordingReplaysUpToTheDamageAndNamesTheLine() async throws {
        let file = temporaryFile("damaged.jsonl")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let lines = [
            #"{"type":"recording","version":1,"started":1700000000,"endpoint":"127.0.0.1:1 no TLS","channels":["chat"],"source":"test"}"#,
            #"{"type":"client","t":1700000000.5,"event":{"kind":"subscribed","channel":"chat"}}"#,
            #"{"type":"client","t":1700000001,"event":{"kind":"event","channel":"chat","event":"hello","data":"{\"a\":1}","received_at":1700000001}}"#,
            #"{"type":"client","t":1700000002,"event":{"kind":"#,
        ]
        try (lines.joined(separator: "\n")).write(toFile: file, atomically: true, encoding: .utf8)
        let tmux = try pushtop("replay --speed 16 \(file)")
        defer { tmux.stop() }
        let screen = try await tmux.waitFor("the damage", timeout: 15) {
            $0.contains("stopped at line 4") && $0.contains("■ REPLAY")
        }
        #expect(screen.contains("hello"))
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))
        // Not a recording at all: a usage error naming the problem.
        let bad = temporaryFile("bad.jsonl")
        defer { try? FileManager.default.removeItem(atPath: bad) }
        try "hello\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let output = try TmuxSession.run(
            ["sh", "-c", "\(DemoEndToEndTests.binary) replay \(bad) 2>&1; echo EXIT=$?"], capture: true)
        #expect(output.contains("not a pushtop recording"))
        #expect(output.contains("EXIT=64"))
    }
}
