import Foundation
import PushtopServer
import PushtopTestSupport
import Testing

/// Connection settings from `~/.config/pushtop/config.toml` profiles and the environment, under the flags.
@Suite(.timeLimit(.minutes(1))) struct ProfileTests {
    func home(config: String) throws -> String {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-profile-\(UInt32.random(in: 0...UInt32.max))")
        let dir = home.appendingPathComponent(".config/pushtop")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try config.write(to: dir.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        return home.path
    }

    @Test func watchTakesKeyHostAndChannelsFromAProfile() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let home = try home(
            config: """
                [profiles.local]
                key = "profile-key"
                host = "127.0.0.1"
                port = \(server.port)
                tls = false
                channels = ["from-profile"]
                """)
        let watch = try PushtopProcess(
            ["watch", "--profile", "local"], environment: ["HOME": home, "XDG_CONFIG_HOME": ""])
        try await watch.waitForLine("subscribed") {
            $0["type"] as? String == "subscribed" && $0["channel"] as? String == "from-profile"
        }
        #expect(server.paths.first?.hasPrefix("/app/profile-key?") == true)
        watch.signal(SIGTERM)
        #expect(try await watch.exitCode() == 0)
    }

    @Test func doctorChecksTheHTTPAPIWithTheProfilesAppIDAndSecret() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let app = server.configuration.app
        let home = try home(
            config: """
                [profiles.local]
                key = "\(app.key)"
                secret = "\(app.secret)"
                app_id = "\(app.id)"
                host = "127.0.0.1"
                port = \(server.port)
                tls = false
                """)
        let run = try await CommandRun.run(
            "pushtop", ["doctor", "--profile", "local"], environment: ["HOME": home, "XDG_CONFIG_HOME": ""])
        await server.shutdown()
        #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
        #expect(run.stdout.contains("ok    HTTP API"), "the profile's app_id is used: \(run.stdout)")
    }

    @Test func aProfileSignsInThroughItsUserAuthEndpointWithItsWatchlist() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let home = try home(
            config: """
                [profiles.signed]
                key = "\(server.configuration.app.key)"
                host = "127.0.0.1"
                port = \(server.port)
                tls = false
                user_id = "ann"
                user_auth_endpoint = "\(server.httpURL)/pusher/user-auth"
                sign_in = true
                watchlist = ["bob"]
                """)
        let watch = try PushtopProcess(
            ["watch", "--profile", "signed", "--stdin"],
            environment: ["HOME": home, "XDG_CONFIG_HOME": ""])
        try await watch.waitForLine("signin") { $0["type"] as? String == "signin" }
        #expect(
            watch.lines.contains(#"{"type":"signin","user_id":"ann","user_data":{"id":"ann","watchlist":["bob"]}}"#),
            "\(watch.lines)")
        watch.closeStdin()
        #expect(try await watch.exitCode() == 0)
        await server.shutdown()
    }

    @Test func aProfilesUnreadableCAFileIsNamed() async throws {
        let home = try home(
            config: """
                [profiles.tls]
                key = "k"
                host = "127.0.0.1"
                ca_file = "/nonexistent/private-ca.pem"
                """)
        try await PushtopProcess.expectUsageError(
            ["watch", "--profile", "tls", "c"],
            environment: ["HOME": home, "XDG_CONFIG_HOME": ""], mentioning: "ca_file '/nonexistent/private-ca.pem'")
        let check = try await CommandRun.run(
            "pushtop", ["config", "check"], environment: ["HOME": home, "XDG_CONFIG_HOME": ""])
        #expect(check.status == 1)
        #expect(
            check.stderr.contains("profiles.tls.ca_file: '/nonexistent/private-ca.pem' is not a readable file"),
            "\(check.stderr)")
    }

    @Test func flagsWinOverTheProfile() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let home = try home(
            config: """
                profile = "local"
                [profiles.local]
                key = "profile-key"
                host = "127.0.0.1"
                port = 1
                tls = false
                """)
        let watch = try PushtopProcess(
            ["watch", "--key", "flag-key", "--port", String(server.port), "c"],
            environment: ["HOME": home, "XDG_CONFIG_HOME": ""])
        try await watch.waitForLine("connected") { $0["current"] as? String == "connected" }
        #expect(server.paths.first?.hasPrefix("/app/flag-key?") == true)
        watch.signal(SIGTERM)
        _ = try await watch.exitCode()
    }

    @Test func aBrokenConfigFileIsNamedWithTheProblem() async throws {
        let home = try home(
            config: """
                [profiles.local]
                port = "not a number"
                """)
        let watch = try await PushtopProcess.expectUsageError(
            ["watch", "--profile", "local", "c"],
            environment: ["HOME": home, "XDG_CONFIG_HOME": ""], mentioning: "config.toml")
        #expect(watch.stderr.contains("profiles.local.port"))
    }

    @Test func anUnknownProfileIsRefused() async throws {
        let home = try home(config: "[profiles.local]\nkey = \"k\"\n")
        try await PushtopProcess.expectUsageError(
            ["watch", "--profile", "nope", "c"],
            environment: ["HOME": home, "XDG_CONFIG_HOME": ""], mentioning: "nope")
    }

    @Test func severalProfilesAreRefusedWhereOnlyOneAppMakesSense() async throws {
        let home = try home(config: "[profiles.a]\nkey = \"ka\"\n[profiles.b]\nkey = \"kb\"\n")
        let environment = ["HOME": home, "XDG_CONFIG_HOME": ""]
        try await PushtopProcess.expectUsageError(
            ["watch", "--profile", "a", "--profile", "b", "c"],
            environment: environment, mentioning: "--profile is given 2 times: only the dashboard opens several apps")
        // The dashboard takes several, but not twice the same, nor with one app's --key for all.
        try await PushtopProcess.expectUsageError(
            ["--profile", "a", "--profile", "a"],
            environment: environment, mentioning: "--profile a is given twice")
        try await PushtopProcess.expectUsageError(
            ["--profile", "a", "--profile", "b", "--key", "k"],
            environment: environment, mentioning: "--key cannot be combined with several profiles")
        try await PushtopProcess.expectUsageError(
            ["--profile", "a", "--profile", "nope"],
            environment: environment, mentioning: "no profile 'nope'")
    }
}
