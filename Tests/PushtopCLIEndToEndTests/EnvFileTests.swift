import Foundation
import PushtopTestSupport
import Testing

/// `--env-file`: a Laravel (Reverb or Pusher) or soketi `.env` names the app for every command, run as the real
/// binary against a real `pushtop serve`.
@Suite(.timeLimit(.minutes(2))) struct EnvFileTests {
    func write(_ text: String, name: String = ".env") throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-envfile-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func reverbEnv(port: Int, portLine: String? = nil) -> String {
        """
        APP_NAME=Laravel
        BROADCAST_CONNECTION=reverb

        REVERB_APP_ID=\(ServeNode.appID)
        REVERB_APP_KEY=\(ServeNode.key)
        REVERB_APP_SECRET="\(ServeNode.secret)"
        REVERB_HOST="127.0.0.1"
        \(portLine ?? "REVERB_PORT=\(port)")
        REVERB_SCHEME=http # local

        VITE_REVERB_APP_KEY="${REVERB_APP_KEY}"
        VITE_REVERB_HOST="${REVERB_HOST}"
        """
    }

    /// No config file, no PUSHER_* variables: only what the test gives.
    let isolated = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": ""]

    @Test func reverbEnvFileDrivesWatchAndTrigger() async throws {
        let node = try await ServeNode.start()
        let env = try write(reverbEnv(port: node.port))
        // The file wins over the environment's app settings.
        let watch = try PushtopProcess(
            ["watch", "--env-file", env, "private-orders"],
            environment: isolated.merging(["PUSHER_APP_KEY": "wrong-key", "PUSHER_PORT": "1"]) { $1 })
        try await watch.waitForLine("subscribed") { $0["type"] as? String == "subscribed" }
        #expect(
            watch.stderr.contains(
                "(Reverb): app_id from REVERB_APP_ID (line 4), key from REVERB_APP_KEY (line 5), secret from REVERB_APP_SECRET (line 6), host from REVERB_HOST (line 7), port from REVERB_PORT (line 8), tls from REVERB_SCHEME (line 9)"
            ),
            "\(watch.stderr)")
        #expect(!watch.stderr.contains(ServeNode.secret))
        let trigger = try await CommandRun.run(
            "pushtop", ["trigger", "--env-file", env, "private-orders", "shipped", #"{"id":7}"#],
            environment: isolated)
        #expect(trigger.status == 0, "\(trigger.stderr)")
        try await watch.waitForLine("the event") { $0["event"] as? String == "shipped" }
        watch.signal(SIGTERM)
        #expect(try await watch.exitCode() == 0)
        await node.stop()
    }

    @Test func benchAndCanaryTakeTheAppFromTheFile() async throws {
        let node = try await ServeNode.start()
        let env = try write(reverbEnv(port: node.port))
        let bench = try await CommandRun.run(
            "pushtop",
            [
                "bench", "--env-file", env, "--rate", "50", "--subscribers", "2",
                "--duration", "1", "--json",
            ], environment: isolated)
        #expect(bench.status == 0, "\(bench.stderr)")
        #expect(
            bench.stderr.contains("key from REVERB_APP_KEY (line 5)")
                && bench.stdout.contains("127.0.0.1:\(node.port)"),
            "\(bench.stdout) \(bench.stderr)")
        let canary = try await CommandRun.run(
            "pushtop", ["canary", "--env-file", env, "--duration", "1"], environment: isolated)
        #expect(canary.status == 0, "\(canary.stdout.suffix(400)) \(canary.stderr)")
        #expect(canary.stdout.contains(#""node":"127.0.0.1:\#(node.port)""#))
        await node.stop()
    }

    @Test func flagsWinOverTheFile() async throws {
        let node = try await ServeNode.start()
        let env = try write(reverbEnv(port: 1))
        let watch = try PushtopProcess(
            ["watch", "--env-file", env, "--port", String(node.port), "orders"], environment: isolated)
        try await watch.waitForLine("subscribed") { $0["type"] as? String == "subscribed" }
        #expect(watch.stderr.contains("port from --port (over REVERB_PORT (line 8))"), "\(watch.stderr)")
        watch.signal(SIGTERM)
        #expect(try await watch.exitCode() == 0)
        await node.stop()
    }

    @Test func pusherEnvFilePassesDoctorWithTheHTTPAPI() async throws {
        let node = try await ServeNode.start()
        let env = try write(
            """
            BROADCAST_DRIVER=pusher
            PUSHER_APP_ID=\(ServeNode.appID)
            PUSHER_APP_KEY=\(ServeNode.key)
            PUSHER_APP_SECRET=\(ServeNode.secret)
            PUSHER_HOST=127.0.0.1
            PUSHER_PORT=\(node.port)
            PUSHER_SCHEME=http
            PUSHER_APP_CLUSTER=mt1

            VITE_PUSHER_APP_KEY="${PUSHER_APP_KEY}"
            VITE_PUSHER_HOST="${PUSHER_HOST}"
            """)
        let doctor = try await CommandRun.run("pushtop", ["doctor", "--env-file", env], environment: isolated)
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
        #expect(
            doctor.stdout.contains("(Pusher): app_id from PUSHER_APP_ID (line 2), key from PUSHER_APP_KEY (line 3)"),
            "\(doctor.stdout)")
        #expect(
            doctor.stdout.contains("ok    HTTP API") && doctor.stdout.contains("signed by the local secret"),
            "\(doctor.stdout)")
        await node.stop()
    }

    @Test func soketiEnvFileSignsPrivateChannelsLocally() async throws {
        let node = try await ServeNode.start()
        let env = try write(
            """
            SOKETI_DEFAULT_APP_ID=\(ServeNode.appID)
            SOKETI_DEFAULT_APP_KEY=\(ServeNode.key)
            SOKETI_DEFAULT_APP_SECRET=\(ServeNode.secret)
            SOKETI_PORT=\(node.port)
            """, name: "soketi.env")
        let watch = try PushtopProcess(["watch", "--env-file", env, "private-soketi"], environment: isolated)
        try await watch.waitForLine("subscribed") {
            $0["type"] as? String == "subscribed" && $0["channel"] as? String == "private-soketi"
        }
        #expect(watch.stderr.contains("host 127.0.0.1 (soketi listens on all interfaces)"), "\(watch.stderr)")
        watch.signal(SIGTERM)
        #expect(try await watch.exitCode() == 0)
        await node.stop()
    }

    @Test func badFilesGetClearErrorsNamingKeyAndLine() async throws {
        let missing = try write("APP_NAME=Laravel\nBROADCAST_CONNECTION=reverb\nREVERB_HOST=localhost\n")
        var run = try await CommandRun.run("pushtop", ["watch", "--env-file", missing, "c"], environment: isolated)
        #expect(run.status == 64)
        #expect(
            run.stderr.contains(
                "\(missing):2: REVERB_APP_KEY: missing (BROADCAST_CONNECTION=reverb on line 2 needs it)"),
            "\(run.stderr)")

        let badPort = try write(reverbEnv(port: 0, portLine: "REVERB_PORT=80800"))
        run = try await CommandRun.run("pushtop", ["trigger", "--env-file", badPort, "c", "e"], environment: isolated)
        #expect(run.status == 64)
        #expect(
            run.stderr.contains("\(badPort):8: REVERB_PORT: expected a port 1-65535, found '80800'"), "\(run.stderr)")

        run = try await CommandRun.run("pushtop", ["doctor", "--env-file", "/nonexistent/.env"], environment: isolated)
        #expect(run.status == 64)
        #expect(
            run.stderr.contains("/nonexistent/.env: cannot read the file: No such file or directory"), "\(run.stderr)")

        let folder = FileManager.default.temporaryDirectory.path
        run = try await CommandRun.run("pushtop", ["canary", "--env-file", folder], environment: isolated)
        #expect(run.status == 2)
        #expect(run.stderr.contains("\(folder): cannot read the file"), "\(run.stderr)")

        let unterminated = try write("REVERB_APP_KEY=k\nREVERB_APP_SECRET=\"abc\n")
        run = try await CommandRun.run(
            "pushtop", ["config", "check", "--env-file", unterminated], environment: isolated)
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(unterminated):2: the double quote opened here is never closed"), "\(run.stderr)")
    }

    @Test func configCheckNamesTheKeysAndInitWritesAProfile() async throws {
        let node = try await ServeNode.start()
        let env = try write(reverbEnv(port: node.port))
        let home = (env as NSString).deletingLastPathComponent
        let environment = ["HOME": home, "XDG_CONFIG_HOME": ""]
        let check = try await CommandRun.run(
            "pushtop", ["config", "check", "--env-file", env], environment: environment)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(
            check.stdout.contains("key from REVERB_APP_KEY (line 5)")
                && check.stdout.contains("not needed with --env-file"),
            "\(check.stdout)")
        let initRun = try await CommandRun.run(
            "pushtop", ["config", "init", "--from-env-file", env], environment: environment)
        #expect(initRun.status == 0, "\(initRun.stderr)")
        let written = try String(contentsOfFile: home + "/.config/pushtop/config.toml", encoding: .utf8)
        #expect(
            written.contains("[profiles.reverb]") && written.contains("port = \(node.port)  # REVERB_PORT (line 8)"),
            "\(written)")
        // The profile works without the file, and checks clean.
        let watch = try PushtopProcess(["watch", "--profile", "reverb", "private-x"], environment: environment)
        try await watch.waitForLine("subscribed") { $0["type"] as? String == "subscribed" }
        watch.signal(SIGTERM)
        #expect(try await watch.exitCode() == 0)
        let again = try await CommandRun.run(
            "pushtop", ["config", "init", "--from-env-file", env], environment: environment)
        #expect(again.status == 1 && again.stderr.contains("already has [profiles.reverb]"), "\(again.stderr)")
        await node.stop()
    }
}
