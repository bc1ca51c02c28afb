import Foundation
import PusherProtocol
import PushtopTestSupport
import Synchronization
import Testing

/// A console listener lives exactly as long as its feed's client: `pushtop_console_listeners{app}` in `/metrics`
/// counts the open ones, a client gone before or after the hello leaves none behind, and in a cluster the node stops
/// asking the others to forward its rows.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ServeConsoleLifetimeTests {
    static let gauge = "pushtop_console_listeners{app=\"\(ServeNode.appID)\"}"

    static func listeners(_ node: ServeNode) async throws -> Double? {
        try await ServeScrape.metrics(port: node.port)[gauge]
    }

    static var target: String {
        ServeConsoleFeedReader.target(appID: ServeNode.appID, key: ServeNode.key, secret: ServeNode.secret)
    }

    /// Sends the feed's request and goes away at once: closed (FIN) or reset (RST), before any answer is read.
    static func vanish(_ port: Int, reset: Bool) async throws {
        try await offloaded {
            let socket = try RawSocket(port: port, timeout: 5)
            try socket.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            if reset { socket.abort() } else { socket.close() }
        }
    }

    @Test func clientsGoneBeforeOrAfterTheHelloLeaveNoListener() async throws {
        let node = try await ServeNode.start()
        defer { Task { await node.stop() } }
        #expect(try await Self.listeners(node) == 0)

        // Open feeds count; their clients going away (after the hello) bring the gauge back at once, well before
        // the next keep-alive (15 s) would have found out.
        let feeds = try (0..<3).map { _ in try ServeConsoleFeedReader(port: node.port, target: Self.target) }
        try await waitUntil("three hellos") { feeds.allSatisfy { $0.hello != nil } }
        #expect(try await Self.listeners(node) == 3)
        for feed in feeds { feed.stop() }
        try await waitUntil(timeout: 5, "the listeners of the closed feeds to go") {
            try await Self.listeners(node) == 0
        }

        // Clients that vanish before the hello, by FIN and by RST, many times over.
        for round in 0..<20 { try await Self.vanish(node.port, reset: round % 2 == 1) }
        try await waitUntil(timeout: 5, "no listener left by clients gone before the hello") {
            try await Self.listeners(node) == 0
        }
        // Still a working feed afterwards.
        let feed = try ServeConsoleFeedReader(port: node.port, target: Self.target)
        defer { feed.stop() }
        try await waitUntil("a hello") { feed.hello != nil }
        #expect(try await Self.listeners(node) == 1)
    }

    @Test func inAClusterANodeStopsAskingForRowsOnceItsLastListenerIsGone() async throws {
        try #require(RedisServerProcess.isAvailable, "redis-server is needed (scripts/install-deps)")
        let redis = try await RedisServerProcess.start()
        defer { redis.stop() }
        let a = try await ServeNode.start(extra: ["--redis", redis.url, "--node-id", "node-a"])
        defer { Task { await a.stop() } }
        let b = try await ServeNode.start(extra: ["--redis", redis.url, "--node-id", "node-b"])
        defer { Task { await b.stop() } }
        let watcher = try RedisChannelWatcher(port: redis.port, channel: "pushtop:\(ServeNode.appID):console")
        defer { watcher.stop() }
        try await waitUntil("the watcher to subscribe") { watcher.subscribed }

        let feed = try ServeConsoleFeedReader(port: a.port, target: Self.target)
        try await waitUntil("a hello") { feed.hello != nil }
        try await waitUntil(timeout: 5, "node A to ask the others for rows") {
            watcher.messages.contains { $0.contains(#""k":"on","o":"node-a""#) }
        }
        // The client vanishes; then node A says nothing more on the console channel (it announces every second
        // while it listens).
        feed.stop()
        try await waitUntil(timeout: 5, "node A's listener to go") { try await Self.listeners(a) == 0 }
        let seen = watcher.messages.count
        try await Task.sleep(for: .seconds(3))
        let later = watcher.messages.dropFirst(seen).filter { $0.contains(#""o":"node-a""#) }
        #expect(later.isEmpty, "node A still announces: \(later)")

        // A client gone before its hello on node A makes no announcement either.
        for round in 0..<10 { try await Self.vanish(a.port, reset: round % 2 == 1) }
        try await waitUntil(timeout: 5, "no listener on node A") { try await Self.listeners(a) == 0 }
        let quiet = watcher.messages.count
        try await Task.sleep(for: .seconds(2.5))
        let after = watcher.messages.dropFirst(quiet).filter { $0.contains(#""k":"on","o":"node-a""#) }
        #expect(after.isEmpty, "node A announces for a client that is gone: \(after)")
    }
}

/// `redis-cli SUBSCRIBE CHANNEL`: every message published on a Redis channel, as text.
final class RedisChannelWatcher: Sendable {
    private final class Output: Sendable {
        let text = Mutex("")
    }

    private let process: Process
    private let pipe: Pipe
    private let output = Output()

    init(port: Int, channel: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["redis-cli", "-p", "\(port)", "SUBSCRIBE", channel]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let output = output
        pipe.fileHandleForReading.readChunks { data in
            output.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        self.process = process
        self.pipe = pipe
    }

    /// Whether the subscription is in place (redis-cli printed its confirmation).
    var subscribed: Bool { output.text.withLock { $0.contains("subscribe") } }

    /// The lines redis-cli printed that are messages' payloads (JSON objects).
    var messages: [String] {
        output.text.withLock { $0 }.split(separator: "\n").map(String.init).filter { $0.hasPrefix("{") }
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }

    deinit {
        if process.isRunning { process.terminate() }
        pipe.fileHandleForReading.stopReading()
    }
}
