import PushtopRedis
import Testing

@Suite struct RedisURLTests {
    @Test func parsesEveryPart() throws {
        #expect(try RedisURL("redis://127.0.0.1") == RedisURL(host: "127.0.0.1", port: 6379))
        #expect(try RedisURL("redis://cache:6380/2") == RedisURL(host: "cache", port: 6380, database: 2))
        #expect(try RedisURL("redis://:pa%40ss@h:1/") == RedisURL(host: "h", port: 1, password: "pa@ss"))
        #expect(try RedisURL("redis://alice:pw@h") == RedisURL(host: "h", username: "alice", password: "pw"))
        #expect(try RedisURL("REDIS://pw@h:7") == RedisURL(host: "h", port: 7, password: "pw"))
        #expect(try RedisURL("redis://[::1]:6390/3") == RedisURL(host: "::1", port: 6390, database: 3))
    }

    @Test(arguments: [
        ("http://h:6379", "it must start with redis://"),
        ("rediss://h:6379", "TLS (rediss://) is not supported"),
        ("redis://", "the host is missing"),
        ("redis://:6379", "the host is missing"),
        ("redis://h:0", "the port \"0\" is not a number from 1 to 65535"),
        ("redis://h:99999", "the port \"99999\" is not a number from 1 to 65535"),
        ("redis://h:http", "the port \"http\" is not a number from 1 to 65535"),
        ("redis://h/x", "the database \"x\" is not a number 0 or more"),
        ("redis://h/-1", "the database \"-1\" is not a number 0 or more"),
        ("redis://h?db=1", "unexpected \"?db=1\" (no query or fragment is supported)"),
        ("redis://[::1", "an IPv6 address needs its closing ]"),
        ("redis://:p%zz@h", "bad percent-encoding in the user or password"),
    ])
    func refusesBadURLsWithAReason(text: String, reason: String) {
        #expect(throws: RedisError.self) { try RedisURL(text) }
        do {
            _ = try RedisURL(text)
        } catch {
            guard case .invalidURL(_, let actual) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(actual == reason)
        }
    }

    @Test func errorsAndDescriptionsNeverShowThePassword() throws {
        do {
            _ = try RedisURL("redis://bob:hunter2@h:notaport")
            Issue.record("should have thrown")
        } catch {
            #expect(!error.description.contains("hunter2"))
            #expect(error.description.contains("redis://bob:***@h:notaport"))
        }
        let url = try RedisURL("redis://:hunter2@10.0.0.5:6380/1")
        #expect(url.description == "redis://:***@10.0.0.5:6380/1")
    }
}
