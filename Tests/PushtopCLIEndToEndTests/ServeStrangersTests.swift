import Foundation
import PusherProtocol
import PushtopTestSupport
import Testing

/// Strangers belong to no app: a WebSocket with a key no app has, against the real `pushtop serve` of two apps, is
/// refused Pusher's way and counted for the server, and nothing of it reaches either app's console or metrics.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ServeStrangersTests {
    typealias Apps = ServeAppsFileTests

    static func feed(_ port: Int, _ app: Apps.App) async throws -> ServeConsoleFeedReader {
        let reader = try ServeConsoleFeedReader(
            port: port, target: ServeConsoleFeedReader.target(appID: app.id, key: app.key, secret: app.secret))
        try await waitUntil("app \(app.id)'s feed hello") { reader.hello != nil || reader.ended }
        try #require(reader.status == 200, "\(reader.head)")
        return reader
    }

    @Test func aSocketWithAnUnknownKeyIsInNoAppsConsoleOrMetricsAndCountedForTheServer() async throws {
        let (serve, port) = try await Apps.serve(try Apps.file(Apps.twoApps))
        defer { Task { await Apps.stop(serve) } }
        let shopFeed = try await Self.feed(port, Apps.shop)
        let blogFeed = try await Self.feed(port, Apps.blog)
        defer { for feed in [shopFeed, blogFeed] { feed.stop() } }
        let before = try await ServeScrape.metrics(port: port)
        #expect(before["pushtop_refused_total{reason=\"unknown_key\"}"] == 0, "\(before)")

        // The stranger is told as Pusher tells it: pusher:error 4001, then a close frame with 4001.
        let (error, close) = try await offloaded {
            let socket = try RawSocket.webSocket(port: port, path: "/app/stranger-key?protocol=7&client=js")
            defer { socket.close() }
            let error = try socket.readEvent(PusherEventName.error)
            return (error, socket.readCloseCode())
        }
        let data = try PusherMessage(decoding: error).dataJSON
        #expect(data?["code"]?.intValue == 4001, "\(error)")
        #expect(data?["message"]?.stringValue?.contains("stranger-key") == true, "\(error)")
        #expect(close == 4001)

        // Counted once, for the server; each app's own lines as they were.
        try await waitUntil("the server-level refusal to be counted") {
            try await ServeScrape.metrics(port: port)["pushtop_refused_total{reason=\"unknown_key\"}"] == 1
        }
        let after = try await ServeScrape.metrics(port: port)
        for id in ["1", "2"] {
            #expect(ServeScrape.ofApp(id, after) == ServeScrape.ofApp(id, before), "app \(id)'s metrics changed")
        }

        // Each feed shows its own app's next connection, and nothing of the stranger before it.
        let (shop, shopID) = try await Apps.connect(port, Apps.shop)
        let (blog, blogID) = try await Apps.connect(port, Apps.blog)
        defer { for socket in [shop, blog] { socket.close() } }
        try await shopFeed.waitForRow("the shop's own connection") { $0.socketID == shopID }
        try await blogFeed.waitForRow("the blog's own connection") { $0.socketID == blogID }
        for (name, feed) in [("shop", shopFeed), ("blog", blogFeed)] {
            #expect(!feed.rows.contains { $0.type == .error }, "\(name): \(feed.rows)")
            #expect(!feed.body.contains("stranger-key"), "\(name): \(feed.body)")
        }
        #expect(!serve.lines.contains { $0.contains("stranger-key") }, "stdout is for the banner")
    }

    /// What a stranger sends reaches the log cut short (the escaping of what a URL cannot carry is
    /// `ServerRefusalsTests`').
    @Test func aStrangersKeyIsLoggedCut() async throws {
        let path = try Apps.file(Apps.twoApps)
        let serve = try PushtopProcess(["serve", "--port", "0", "--apps-file", path, "--log-level", "info"])
        defer { Task { await Apps.stop(serve) } }
        try await waitUntil(timeout: 30, "serve to print where it listens") {
            serve.lines.first.map { $0.contains("listening on") } ?? false
        }
        let line = serve.lines[0]
        let range = try #require(line.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression))
        let port = try #require(Int(line[range].split(separator: ":")[1]))
        let key = "evil'txt" + String(repeating: "k", count: 300)
        let close = try await offloaded {
            let socket = try RawSocket.webSocket(port: port, path: "/app/\(key)?protocol=7")
            defer { socket.close() }
            return socket.readCloseCode()
        }
        #expect(close == 4001)
        try await waitUntil("the refusal in the log") { serve.stderr.contains("unknown app key") }
        let logged = serve.stderr.split(separator: "\n").first { $0.contains("unknown app key") } ?? ""
        #expect(logged.contains("evil'txtkkk"), "\(logged)")
        #expect(logged.contains("remote=127.0.0.1"), "\(logged)")
        #expect(!logged.contains(String(repeating: "k", count: 100)), "cut: \(logged)")
    }
}
