import Foundation
import PusherChannels
import PusherProtocol
import PushtopTestSupport
import Testing

/// `pushtop serve --apps-file`: the real binary serving two apps with the same channel names, on one node and as a
/// two-node `--redis` cluster; `SIGHUP` reloads; `pushtop conform` passes against each app.
@Suite(.serialized) struct ServeAppsFileTests {
    struct App {
        var id: String
        var key: String
        var secret: String
    }

    static let shop = App(id: "1", key: "shop-key", secret: "shop-secret")
    static let blog = App(id: "2", key: "blog-key", secret: "blog-secret")

    /// Two apps; the shop's presence channels hold one member.
    static let twoApps = """
        [[apps]]
        id = "1"
        key = "shop-key"
        secret = "shop-secret"
        name = "Shop"
        max_presence_members = 1

        [[apps]]
        id = 2
        key = "blog-key"
        secret = "blog-secret"
        """

    /// A fresh apps file with `text`.
    static func file(_ text: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-apps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("apps.toml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Starts `serve` with the apps file; returns the process and its port.
    static func serve(_ path: String, extra: [String] = [], logLevel: String = "error") async throws -> (
        PushtopProcess, Int
    ) {
        let process = try PushtopProcess(
            ["serve", "--port", "0", "--apps-file", path, "--log-level", logLevel] + extra)
        try await waitUntil(timeout: 30, "serve to print where it listens (stderr: \(process.stderr.suffix(300)))") {
            process.lines.first.map { $0.contains("listening on") } ?? false
        }
        let line = process.lines[0]
        guard let range = line.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
            let port = Int(line[range].split(separator: ":")[1])
        else { throw TestFailure("no port in '\(line)'") }
        return (process, port)
    }

    static func stop(_ process: PushtopProcess) async {
        process.signal(SIGTERM)
        _ = try? await process.exitCode()
    }

    /// A WebSocket to `app` on `port`, once `pusher:connection_established` arrived; returns its socket id.
    static func connect(_ port: Int, _ app: App) async throws -> (RawSocket, String) {
        try await offloaded {
            let socket = try RawSocket.webSocket(port: port, path: "/app/\(app.key)?protocol=7")
            let text = try socket.readEvent(PusherEventName.connectionEstablished)
            let message = try PusherMessage(decoding: text)
            return (socket, message.dataJSON?["socket_id"]?.stringValue ?? "")
        }
    }

    /// Subscribes (signed for private and presence channels) and returns the server's answer's event name.
    static func subscribe(_ socket: RawSocket, _ socketID: String, _ app: App, _ channel: String, user: String? = nil)
        async throws -> String
    {
        var data: [String: JSONValue] = ["channel": .string(channel)]
        var channelData: String?
        if let user { channelData = #"{"user_id":"\#(user)"}"# }
        if channel.hasPrefix("private-") || channel.hasPrefix("presence-") {
            data["auth"] = .string(
                ChannelAuthSignature.auth(
                    key: app.key, secret: app.secret, socketID: socketID, channel: channel, channelData: channelData))
        }
        if let channelData { data["channel_data"] = .string(channelData) }
        let frame = PusherMessage(event: PusherEventName.subscribe, data: .object(data)).jsonString
        return try await offloaded {
            try socket.sendText(frame)
            while true {
                let reply = try socket.readFrame()
                if reply.opcode == 0x8 { throw TestFailure("closed with \(reply.closeCode ?? 0)") }
                let message = try PusherMessage(decoding: reply.text)
                if message.channel == channel,
                    [PusherEventName.subscriptionSucceeded, PusherEventName.subscriptionError].contains(message.event)
                {
                    return message.event
                }
            }
        }
    }

    static func api(_ port: Int, _ app: App) -> PusherAPIClient {
        PusherAPIClient(
            configuration: PusherAPIConfiguration(
                appID: app.id, key: app.key, secret: app.secret, host: "127.0.0.1", port: port))
    }

    static func users(_ port: Int, _ app: App, _ channel: String) async throws -> [String] {
        let response = try await api(port, app).users(in: channel)
        return response.json?["users"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    /// Pings and returns the events that arrived before the pong.
    static func drain(_ socket: RawSocket) async throws -> [String] {
        try await offloaded {
            try socket.sendText(#"{"event":"pusher:ping","data":{}}"#)
            var events: [String] = []
            while true {
                let frame = try socket.readFrame()
                if frame.opcode == 0x8 { throw TestFailure("closed with \(frame.closeCode ?? 0)") }
                guard frame.opcode == 0x1, let message = try? PusherMessage(decoding: frame.text) else { continue }
                if message.event == PusherEventName.pong { return events }
                events.append(message.event)
            }
        }
    }

    @Test func conformPassesAgainstEachAppOfATwoAppServe() async throws {
        let path = try Self.file(Self.twoApps.replacingOccurrences(of: "max_presence_members = 1\n", with: ""))
        let (serve, port) = try await Self.serve(path, extra: ["--activity-timeout", "2"])
        defer { Task { await Self.stop(serve) } }
        #expect(serve.lines.contains { $0.contains("Shop: id 1, key shop-key") }, "\(serve.lines)")
        for app in [Self.shop, Self.blog] {
            let report = FileManager.default.temporaryDirectory.appendingPathComponent(
                "conform-\(UUID().uuidString).json")
            let run = try await ConformCommandTests.conform(
                [
                    "--port", "\(port)", "--key", app.key, "--secret", app.secret, "--app-id", app.id,
                    "--output", report.path,
                ])
            #expect(run.code == 0, "app \(app.id): \(run.failures)\n\(run.stderr)")
            // The report as written to the file (stdout may still be being read when the process exits).
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any] ?? [:]
            let summary = json["summary"] as? [String: Any] ?? [:]
            #expect(summary["fail"] as? Int == 0, "app \(app.id): \(run.failures)")
            #expect((summary["pass"] as? Int ?? 0) > 100, "app \(app.id): \(summary)")
        }
    }

    @Test func theAppsFileCanComeFromTheEnvironment() async throws {
        let path = try Self.file(Self.twoApps)
        let process = try PushtopProcess(
            ["serve", "--port", "0", "--log-level", "error"],
            environment: ["PUSHTOP_APPS_FILE": path])
        defer { Task { await Self.stop(process) } }
        try await waitUntil(timeout: 30, "serve to list its apps (stderr: \(process.stderr.suffix(300)))") {
            process.lines.contains { $0.contains("2: id 2, key blog-key") }
        }
        #expect(process.lines[0].contains("/app/shop-key (app id 1)"), "\(process.lines)")
    }

    @Test func sighupReloadsAndABrokenFileIsRefusedWhileTheAppsGoOn() async throws {
        let path = try Self.file(Self.twoApps)
        let (serve, port) = try await Self.serve(path)
        defer { Task { await Self.stop(serve) } }
        let (shop, shopID) = try await Self.connect(port, Self.shop)
        let (blog, _) = try await Self.connect(port, Self.blog)
        #expect(try await Self.subscribe(shop, shopID, Self.shop, "chat") == PusherEventName.subscriptionSucceeded)

        // A broken file: refused with file:line:key, both apps go on.
        try (Self.twoApps + "\nmax_connections = -1\n").write(toFile: path, atomically: true, encoding: .utf8)
        serve.signal(SIGHUP)
        try await waitUntil(timeout: 10, "the reload to be refused") { serve.stderr.contains("reload refused") }
        #expect(
            serve.stderr.contains("\(path):12: apps[1].max_connections: expected a positive integer, found -1"),
            "\(serve.stderr)")
        _ = try await Self.drain(shop)
        _ = try await Self.drain(blog)

        // The blog removed, the news added: the blog's socket is closed with 4003, the shop's stays.
        let next = Self.twoApps.replacingOccurrences(
            of: "id = 2\nkey = \"blog-key\"\nsecret = \"blog-secret\"",
            with: "id = 4\nkey = \"news-key\"\nsecret = \"news-secret\"")
        try next.write(toFile: path, atomically: true, encoding: .utf8)
        serve.signal(SIGHUP)
        try await waitUntil(timeout: 10, "the reload") { serve.lines.contains { $0.contains("reloaded") } }
        #expect(try await offloaded { blog.readCloseCode() } == 4003)
        _ = try await Self.api(port, Self.shop).trigger(channels: ["chat"], event: "still-here", data: "{}")
        #expect(try await Self.drain(shop).contains("still-here"))
        let news = App(id: "4", key: "news-key", secret: "news-secret")
        let (newsSocket, _) = try await Self.connect(port, news)
        _ = try await Self.drain(newsSocket)
        shop.close()
        newsSocket.close()
    }

    @Test func twoAppsStayApartAcrossARedisCluster() async throws {
        let redis = try await RedisServerProcess.start()
        let shopHooks = try await WebhookReceiver.started()
        let blogHooks = try await WebhookReceiver.started()
        // The nodes stop first (their last webhooks go out while the receivers still listen: a test HTTP server
        // that takes a connection while it stops crashes the test process), then the receivers, then Redis.
        var nodes: [PushtopProcess] = []
        defer {
            Task { [nodes] in
                for node in nodes { await Self.stop(node) }
                for receiver in [shopHooks, blogHooks] { receiver.stop() }
                redis.stop()
            }
        }
        let withHooks =
            Self.twoApps
            .replacingOccurrences(
                of: "max_presence_members = 1\n",
                with: "max_presence_members = 1\n[[apps.webhooks]]\nurl = \"\(shopHooks.url)\"\n")
            + "\n[[apps.webhooks]]\nurl = \"\(blogHooks.url)\"\n"
        let path = try Self.file(withHooks)
        // At warning level the nodes log each failed webhook post (what a failure below needs to be understood).
        let (a, portA) = try await Self.serve(
            path, extra: ["--redis", redis.url, "--node-id", "a"], logLevel: "warning")
        nodes.append(a)
        let (b, portB) = try await Self.serve(
            path, extra: ["--redis", redis.url, "--node-id", "b"], logLevel: "warning")
        nodes.append(b)

        // The same channel names in both apps, on both nodes.
        let (shopA, shopAID) = try await Self.connect(portA, Self.shop)
        let (blogB, blogBID) = try await Self.connect(portB, Self.blog)
        let (blogA, blogAID) = try await Self.connect(portA, Self.blog)
        for (socket, id, app) in [
            (shopA, shopAID, Self.shop), (blogB, blogBID, Self.blog), (blogA, blogAID, Self.blog),
        ] {
            #expect(try await Self.subscribe(socket, id, app, "chat") == PusherEventName.subscriptionSucceeded)
        }
        #expect(
            try await Self.subscribe(shopA, shopAID, Self.shop, "presence-room", user: "ann")
                == PusherEventName.subscriptionSucceeded)
        #expect(
            try await Self.subscribe(blogB, blogBID, Self.blog, "presence-room", user: "bob")
                == PusherEventName.subscriptionSucceeded)

        // An event of the shop, published on node b, reaches the shop's subscriber on node a only.
        _ = try await Self.api(portB, Self.shop).trigger(channels: ["chat"], event: "sale", data: "{}")
        try await waitUntil(timeout: 10, "the sale on node a") { try await Self.drain(shopA).contains("sale") }
        _ = try await Self.api(portA, Self.blog).trigger(channels: ["chat"], event: "post", data: "{}")
        try await waitUntil(timeout: 10, "the post on node b") { try await Self.drain(blogB).contains("post") }
        #expect(!(try await Self.drain(blogA)).contains("sale"))
        #expect(!(try await Self.drain(shopA)).contains("post"))

        // Rosters and counts across the cluster, per app.
        try await waitUntil(timeout: 10, "the rosters") {
            let shop = try? await Self.users(portB, Self.shop, "presence-room")
            let blog = try? await Self.users(portA, Self.blog, "presence-room")
            return shop == ["ann"] && blog == ["bob"]
        }
        let count = try await Self.api(portA, Self.blog).channel("chat", info: ["subscription_count"])
        #expect(count.json?["subscription_count"]?.intValue == 2, "the blog's chat: one on each node")

        // The shop's presence limit (1) holds across nodes, and does not touch the blog's.
        let (shopB, shopBID) = try await Self.connect(portB, Self.shop)
        #expect(
            try await Self.subscribe(shopB, shopBID, Self.shop, "presence-room", user: "cat")
                == PusherEventName.subscriptionError)
        #expect(
            try await Self.subscribe(blogA, blogAID, Self.blog, "presence-room", user: "dan")
                == PusherEventName.subscriptionSucceeded)
        for socket in [shopA, blogB, blogA, shopB] { socket.close() }

        // Webhooks: each app's receiver hears only its own app's channels and members, signed with its own key.
        // Each node posts its own members' webhooks: ann's and dan's come from node a, bob's from node b, so the
        // blog's first member_added may be dan's.
        func members(_ hooks: WebhookReceiver) -> Set<String> {
            Set(
                hooks.accepted.flatMap(\.events).filter { $0["name"]?.stringValue == "member_added" }
                    .compactMap { $0["user_id"]?.stringValue })
        }
        try await waitUntil(timeout: 15, "ann's member_added for the shop and bob's for the blog") {
            members(shopHooks).contains("ann") && members(blogHooks).contains("bob")
        }
        let shopMembers = Set(shopHooks.accepted.flatMap(\.events).compactMap { $0["user_id"]?.stringValue })
        let blogMembers = Set(blogHooks.accepted.flatMap(\.events).compactMap { $0["user_id"]?.stringValue })
        #expect(shopMembers == ["ann"], "\(shopMembers)")
        #expect(blogMembers.isSubset(of: ["bob", "dan"]) && blogMembers.contains("bob"), "\(blogMembers)")
        #expect(shopHooks.accepted.allSatisfy { $0.key == Self.shop.key })
        #expect(blogHooks.accepted.allSatisfy { $0.key == Self.blog.key })
        // Every socket is closed: once both channels are vacated, every occupied webhook has been sent (a member_added
        // can arrive before the occupied of another channel).
        func shopEvents(_ name: String) -> [JSONValue] {
            shopHooks.accepted.flatMap(\.events).filter { $0["name"]?.stringValue == name }
        }
        try await waitUntil(timeout: 15, "the shop's channel_vacated for chat and presence-room") {
            Set(shopEvents("channel_vacated").compactMap { $0["channel"]?.stringValue }) == ["chat", "presence-room"]
        }
        let occupied = shopEvents("channel_occupied")
        // Webhooks are delivered at least once: a post that timed out on a loaded machine (this process is the
        // receiver) is posted again, and the receiver has both. Without a failed post, each channel_occupied must
        // have come once for the cluster, not once per node.
        var failedPosts = 0.0
        for port in [portA, portB] {
            let shop = ServeScrape.ofApp(Self.shop.id, try await ServeScrape.metrics(port: port))
            failedPosts += shop.filter { $0.key.contains("webhook_failures") }.values.reduce(0, +)
        }
        let nodeLogs = [a, b].flatMap { $0.stderr.split(separator: "\n") }.filter { !$0.contains("listening") }
        if failedPosts == 0 {
            #expect(
                occupied.count == 2,
                "chat and presence-room once each for the cluster: \(occupied); the nodes' warnings: \(nodeLogs.suffix(20))"
            )
        } else {
            let channels = occupied.compactMap { $0["channel"]?.stringValue }
            #expect(Set(channels) == ["chat", "presence-room"], "\(failedPosts) failed posts; \(occupied)")
        }
    }
}
