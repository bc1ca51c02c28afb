import Foundation
import PusherProtocol
import PushtopConfig
import Testing

@testable import PushtopCLI

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct ConfigFileTests {
    let sample = """
        theme = "solarized"
        profile = "staging"
        reconnect = "linear"

        [profiles.staging]
        key = "abc123"
        cluster = "eu"
        auth_endpoint = "https://staging.example.com/pusher/auth"
        auth_headers = { Authorization = "Bearer t0k" }
        auth_params = { team = "ops" }
        channels = ["orders", "presence-ops"]
        activity_timeout = 60
        pong_timeout = 2.5

        [profiles.local]
        key = "app-key"
        host = "127.0.0.1"
        port = 6001
        tls = false
        secret = "app-secret"
        user_id = "dev"
        user_info = { name = "Dev" }
        max_retries = 3
        min_delay = 1
        max_delay = 30
        theme = "light"
        """

    @Test func profilesMergeOverTopLevelDefaults() throws {
        let file = try ConfigFile.parse(sample, path: "config.toml")
        let staging = try file.profile(named: nil)  // the default profile
        #expect(staging.key == "abc123")
        #expect(staging.cluster == "eu")
        #expect(staging.theme == "solarized")  // from the top level
        #expect(staging.reconnect == "linear")
        #expect(staging.authHeaders == ["Authorization": "Bearer t0k"])
        #expect(staging.authParams == ["team": "ops"])
        #expect(staging.channels == ["orders", "presence-ops"])
        #expect(staging.activityTimeout == 60)
        #expect(staging.pongTimeout == 2.5)
        let local = try file.profile(named: "local")
        #expect(local.port == 6001)
        #expect(local.tls == false)
        #expect(local.secret == "app-secret")
        #expect(local.userInfo == ["name": "Dev"])
        #expect(local.maxRetries == 3)
        #expect(local.theme == "light")  // the profile wins
    }

    @Test func userInfoMayBeAJSONString() throws {
        let file = try ConfigFile.parse("user_info = '{\"name\":\"Ann\"}'\n", path: "c")
        #expect(file.defaults.userInfo == ["name": "Ann"])
    }

    @Test func unknownProfileListsTheOnesThereAre() throws {
        let file = try ConfigFile.parse(sample, path: "config.toml")
        #expect(throws: ConfigError(source: "config.toml", message: "no profile 'prod' (profiles: local, staging)")) {
            try file.profile(named: "prod")
        }
    }

    @Test(arguments: [
        ("port = \"80\"", "c.toml: port: expected an integer, found a string"),
        ("port = 70000", "c.toml: port: expected a port 1-65535, found 70000"),
        ("tls = \"yes\"", "c.toml: tls: expected true or false, found a string"),
        ("[profiles.a]\nkey = 5", "c.toml: profiles.a.key: expected a string, found an integer"),
        ("channels = [\"ok\", 3]", "c.toml: channels[1]: expected a channel name (string), found an integer"),
        ("channels = [\"bad name\"]", "c.toml: channels[0]: channel name has ' ' at position 4"),
        ("auth_headers = { A = 1 }", "c.toml: auth_headers.A: expected a string, found an integer"),
        ("pong_timeout = -1", "c.toml: pong_timeout: expected a number of seconds ≥ 0"),
        ("min_delay = 10\nmax_delay = 1", "c.toml: min_delay: is larger than max_delay"),
        ("colour = 1", "c.toml: colour: unknown key (known: key, cluster"),
        ("user_info = \"nope\"", "c.toml: user_info: expected a table or a JSON object in a string"),
        ("profiles = 3", "c.toml: profiles: expected tables ([profiles.NAME]), found an integer"),
        ("profile = \"x\"", "c.toml: profile: no [profiles.x] table"),
        ("key = ", "c.toml: not valid TOML: line 1"),
    ])
    func errorsNameTheFileTheKeyAndTheExpectedType(text: String, expected: String) {
        do {
            _ = try ConfigFile.parse(text, path: "c.toml")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error.description)")
        }
    }

    @Test func pathFollowsXDGThenHome() {
        #expect(ConfigFile.path(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/pushtop/config.toml")
        #expect(ConfigFile.path(environment: ["HOME": "/h"]) == "/h/.config/pushtop/config.toml")
        #expect(ConfigFile.path(environment: [:]) == nil)
    }

    @Test func loadReadsTheFileOrReturnsNil() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pushtop-config-\(UUID().uuidString)")
            .path
        #expect(try ConfigFile.load(environment: ["XDG_CONFIG_HOME": root]) == nil)
        try FileManager.default.createDirectory(atPath: root + "/pushtop", withIntermediateDirectories: true)
        try "key = \"k\"\n".write(toFile: root + "/pushtop/config.toml", atomically: true, encoding: .utf8)
        #expect(try ConfigFile.load(environment: ["XDG_CONFIG_HOME": root])?.defaults.key == "k")
    }

    @Test func environmentVariablesAndPrecedence() throws {
        let env = try Profile.fromEnvironment([
            "PUSHTOP_KEY": "envkey", "PUSHTOP_PORT": "6002", "PUSHTOP_TLS": "no",
            "PUSHTOP_USER_INFO": #"{"a":1}"#,
        ])
        #expect(env.key == "envkey")
        #expect(env.port == 6002)
        #expect(env.tls == false)
        #expect(env.userInfo == ["a": 1])
        let file = try ConfigFile.parse(sample, path: "c")
        let merged = env.merged(over: try file.profile(named: "local"))
        #expect(merged.key == "envkey")  // environment over file
        #expect(merged.host == "127.0.0.1")  // file fills the rest
        #expect(throws: ConfigError.self) { try Profile.fromEnvironment(["PUSHTOP_PORT": "x"]) }
    }

    @Test func theSecretIsNeverPrinted() throws {
        let file = try ConfigFile.parse(sample, path: "c")
        let local = try file.profile(named: "local")
        #expect(!local.description.contains("app-secret"))
        #expect(local.description.contains("secret=<redacted>"))
    }
}
