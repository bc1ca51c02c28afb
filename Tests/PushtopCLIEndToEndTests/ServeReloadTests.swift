import Foundation
import PusherProtocol
import PushtopTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A whole reload: after `SIGHUP` everything of the real `pushtop serve` that depends on the apps follows the new
/// file (the demo auth endpoint, the banner, `/health`, `/metrics`), and in a cluster a new app accepts sockets only
/// once its backplane has joined.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ServeReloadTests {
    typealias Apps = ServeAppsFileTests
    static let news = Apps.App(id: "4", key: "news-key", secret: "news-secret")

    /// The shop replaced by the news, first in the file; the blog stays.
    static let newsAndBlog = """
        [[apps]]
        id = "4"
        key = "news-key"
        secret = "news-secret"
        name = "News"

        [[apps]]
        id = 2
        key = "blog-key"
        secret = "blog-secret"
        """

    /// A plain HTTP exchange: the status and the body.
    static func http(_ port: Int, _ method: String, _ path: String, form: String? = nil) async throws -> (Int, String) {
        try await offloaded {
            let socket = try RawSocket(port: port, timeout: 5)
            defer { socket.close() }
            var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            if let form {
                request += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n"
            }
            try socket.send(request + "\r\n" + (form ?? ""))
            let text = String(decoding: socket.readToEnd().bytes, as: UTF8.self)
            let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
            let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
            return (status, body)
        }
    }

    /// Asks the demo auth endpoint to sign `private-room` for `socketID`, subscribes with what it answered and returns
    /// the server's answer (succeeded or error) and the signature.
    static func subscribeThroughDemoAuth(_ port: Int, _ socket: RawSocket, _ socketID: String) async throws
        -> (String, String)
    {
        let (status, body) = try await http(
            port, "POST", "/pusher/auth", form: "socket_id=\(socketID)&channel_name=private-room")
        try #require(status == 200, "\(body)")
        let auth = try #require(JSONValue.parseIfJSON(body)?["auth"]?.stringValue, "\(body)")
        let frame = PusherMessage(
            event: PusherEventName.subscribe, data: ["channel": "private-room", "auth": .string(auth)]
        ).jsonString
        let answer = try await offloaded {
            try socket.sendText(frame)
            while true {
                let reply = try socket.readFrame()
                if reply.opcode == 0x8 { throw TestFailure("closed with \(reply.closeCode ?? 0)") }
                let message = try PusherMessage(decoding: reply.text)
                if message.channel == "private-room" { return message.event }
            }
        }
        return (answer, auth)
    }

    @Test func afterSighupTheDemoAuthBannerHealthAndMetricsFollowTheNewFile() async throws {
        let path = try Apps.file(Apps.twoApps)
        let (serve, port) = try await Apps.serve(path)
        defer { Task { await Apps.stop(serve) } }
        let (shop, shopID) = try await Apps.connect(port, Apps.shop)
        #expect(try await Self.subscribeThroughDemoAuth(port, shop, shopID).0 == PusherEventName.subscriptionSucceeded)
        let shopFeed = try await ServeStrangersTests.feed(port, Apps.shop)
        defer { shopFeed.stop() }
        #expect(try await ServeScrape.metrics(port: port)["pushtop_console_listeners{app=\"1\"}"] == 1)

        try Self.newsAndBlog.write(toFile: path, atomically: true, encoding: .utf8)
        let printed = serve.lineCount
        serve.signal(SIGHUP)
        try await waitUntil(timeout: 10, "the reload") { serve.lines.contains { $0.contains("reloaded") } }
        try await waitUntil("the reloaded banner") { serve.lines.contains { $0.contains("News: id 4") } }

        // The banner names the first app served now, how to reach it, and the apps of the new file.
        let banner = serve.lines(from: printed)
        #expect(
            banner.contains { $0.contains("now serving ws://127.0.0.1:\(port)/app/news-key (app id 4)") }, "\(banner)")
        #expect(banner.contains { $0.contains("HTTP API: http://127.0.0.1:\(port)/apps/4") }, "\(banner)")
        #expect(banner.contains { $0.contains("teammates join:") && $0.contains("--key news-key") }, "\(banner)")
        #expect(banner.contains { $0.contains("2: id 2, key blog-key") }, "\(banner)")
        #expect(!banner.contains { $0.contains("shop-key") }, "\(banner)")

        // The demo auth endpoint signs with the new file's credentials: the app that has the socket.
        let (news, newsID) = try await Apps.connect(port, Self.news)
        let (newsAnswer, newsAuth) = try await Self.subscribeThroughDemoAuth(port, news, newsID)
        #expect(newsAnswer == PusherEventName.subscriptionSucceeded)
        #expect(
            newsAuth
                == ChannelAuthSignature.auth(
                    key: Self.news.key, secret: Self.news.secret, socketID: newsID, channel: "private-room"))
        let (blog, blogID) = try await Apps.connect(port, Apps.blog)
        #expect(try await Self.subscribeThroughDemoAuth(port, blog, blogID).0 == PusherEventName.subscriptionSucceeded)

        // /health: each app served now, with its link and connections.
        let (healthStatus, healthBody) = try await Self.http(port, "GET", "/health")
        #expect(healthStatus == 200)
        let health = try #require(JSONValue.parseIfJSON(healthBody), "\(healthBody)")
        #expect(health["status"]?.stringValue == "ok")
        let apps = health["apps"]?.arrayValue ?? []
        #expect(apps.compactMap { $0["id"]?.stringValue } == ["4", "2"], "\(healthBody)")
        #expect(apps.allSatisfy { $0["redis"]?.stringValue == "disabled" }, "\(healthBody)")
        #expect(apps.first?["connections"]?.intValue == 1, "\(healthBody)")
        #expect(health["connections"]?.intValue == 2, "\(healthBody)")

        // The removed app's console feed ended with it (its listener released).
        try await waitUntil("the shop's feed to end") { shopFeed.ended }

        // /metrics: the removed app's lines are gone (its console gauge too), the new app's are there.
        let metrics = try await ServeScrape.metrics(port: port)
        #expect(ServeScrape.ofApp("1", metrics).isEmpty, "\(ServeScrape.ofApp("1", metrics))")
        #expect(metrics["pushtop_connections{app=\"4\"}"] == 1, "\(ServeScrape.ofApp("4", metrics))")
        #expect(metrics["pushtop_console_listeners{app=\"4\"}"] == 0)
        for socket in [shop, news, blog] { socket.close() }
    }

    @Test func inAClusterANewAppAcceptsSocketsOnlyOnceItsBackplaneJoined() async throws {
        try #require(RedisServerProcess.isAvailable, "redis-server is needed (scripts/install-deps)")
        let redis = try await RedisServerProcess.start()
        let shopOnly = "[[apps]]\nid = \"1\"\nkey = \"shop-key\"\nsecret = \"shop-secret\"\nname = \"Shop\"\n"
        let path = try Apps.file(shopOnly)
        let (serve, port) = try await Apps.serve(path, extra: ["--redis", redis.url, "--node-id", "a"])
        defer {
            Task {
                await Apps.stop(serve)
                redis.stop()
            }
        }
        let pid = try #require(redis.pid)

        // Redis stops answering; the blog is added: its backplane cannot join before it gives up waiting (3 s after
        // it starts), and until then the blog's key is unknown. Without the wait it was served at once.
        kill(pid, SIGSTOP)
        let withBlog = shopOnly + "\n[[apps]]\nid = 2\nkey = \"blog-key\"\nsecret = \"blog-secret\"\n"
        try withBlog.write(toFile: path, atomically: true, encoding: .utf8)
        let hup = ContinuousClock.now
        serve.signal(SIGHUP)
        var attempts: [Int?] = []
        while ContinuousClock.now - hup < .milliseconds(1500) {
            let code = try await offloaded { () -> Int? in
                let socket = try RawSocket.webSocket(port: port, path: "/app/blog-key?protocol=7", timeout: 5)
                defer { socket.close() }
                while true {
                    let frame = try socket.readFrame()
                    if frame.opcode == 0x8 { return frame.closeCode }
                    if frame.text.contains(PusherEventName.connectionEstablished) { return 0 }
                }
            }
            if ContinuousClock.now - hup < .milliseconds(1500) { attempts.append(code) }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(pid, SIGCONT)
        // A connection every 100 ms or so (about 14 in the window when idle); how many fit depends on the machine,
        // and every one of them, however few, must have been refused.
        #expect(!attempts.isEmpty, "no attempt ended within the window")
        #expect(attempts.allSatisfy { $0 == 4001 }, "a blog socket was served before its backplane joined: \(attempts)")

        try await waitUntil(timeout: 15, "the reload") { serve.lines.contains { $0.contains("reloaded") } }
        let (blog, _) = try await Apps.connect(port, Apps.blog)
        try await waitUntil(timeout: 10, "both apps' links up on /health") {
            let body = try await Self.http(port, "GET", "/health").1
            let apps = JSONValue.parseIfJSON(body)?["apps"]?.arrayValue ?? []
            return apps.count == 2 && apps.allSatisfy { $0["redis"]?.stringValue == "up" }
        }
        blog.close()
    }
}
