import PushtopServer
import Testing

@testable import PushtopCLI

/// The apps file of `serve --apps-file`: every key read, and each problem named by file, line and key.
@Suite struct AppsFileTests {
    let sample = """
        [[apps]]
        id = "1"
        key = "shop-key"
        secret = "shop-secret"
        name = "Shop"
        enabled = true
        max_connections = 1000
        client_events = false
        max_presence_members = 50
        max_event_bytes = 2048
        api_requests_per_second = 20
        client_events_per_second = 5
        webhook_batching = false

        [[apps.webhooks]]
        url = "https://shop.example.com/hooks"

        [[apps.webhooks]]
        url = "https://audit.example.com/hooks"
        event_types = ["member_added", "subscription_count"]

        [[apps]]
        id = 2
        key = "blog-key"
        secret = "blog-secret"
        enabled = false
        """

    @Test func readsEveryKey() throws {
        let apps = try AppsFile.parse(sample, path: "apps.toml", webhookGrace: 1.5)
        #expect(apps.count == 2)
        let shop = apps[0]
        #expect(shop.credentials == AppCredentials(id: "1", key: "shop-key", secret: "shop-secret"))
        #expect(shop.name == "Shop")
        #expect(shop.enabled)
        #expect(shop.limits.maxConnections == 1000)
        #expect(!shop.limits.clientEventsEnabled)
        #expect(shop.limits.maxPresenceMembers == 50)
        #expect(shop.limits.maxEventDataBytes == 2048)
        #expect(shop.limits.apiRequestsPerSecond == 20)
        #expect(shop.limits.clientEventsPerSecond == 5)
        #expect(shop.webhooks.urls == ["https://shop.example.com/hooks", "https://audit.example.com/hooks"])
        #expect(
            shop.webhooks.eventTypes == ["https://audit.example.com/hooks": ["member_added", "subscription_count"]])
        #expect(shop.webhooks.maxBatchSize == 1)
        #expect(shop.webhooks.grace == 1.5)
        let blog = apps[1]
        #expect(blog.credentials.id == "2")
        #expect(blog.name == "2")
        #expect(!blog.enabled)
        #expect(blog.limits == PusherLimits())
    }

    func problem(_ text: String) -> String {
        do {
            _ = try AppsFile.parse(text, path: "apps.toml")
            return "no error"
        } catch {
            return error.description
        }
    }

    @Test func problemsNameTheFileTheLineAndTheKey() {
        #expect(
            problem(sample + "\nmax_connections = -1\n")
                == "apps.toml:27: apps[1].max_connections: expected a positive integer, found -1")
        #expect(
            problem(sample.replacingOccurrences(of: "client_events = false", with: "client_event = false"))
                .hasPrefix("apps.toml:8: apps[0].client_event: unknown key"))
        #expect(
            problem(sample.replacingOccurrences(of: "\"member_added\", ", with: "\"member_joined\", "))
                .hasPrefix("apps.toml:20: apps[0].webhooks[1].event_types: expected event types among"))
        #expect(
            problem(sample.replacingOccurrences(of: "key = \"blog-key\"", with: "key = \"shop-key\""))
                == "apps.toml:24: apps[1].key: apps[0] has the key 'shop-key' already")
        #expect(
            problem(sample.replacingOccurrences(of: "id = 2", with: "id = \"two\""))
                .hasPrefix("apps.toml:23: apps[1].id: expected a numeric id"))
        #expect(
            problem(sample.replacingOccurrences(of: "secret = \"blog-secret\"\n", with: ""))
                == "apps.toml:22: apps[1].secret: missing: every app needs a secret")
        #expect(problem("[[apps]]\nid = \"1\"\nkey = \"k\"\nsecret = [\n").hasPrefix("apps.toml:"))
        #expect(problem("port = 1\n") == "apps.toml:1: port: unknown key (the file holds [[apps]] tables only)")
        #expect(problem("") == "apps.toml: no [[apps]] table: the file must define at least one app")
    }
}
