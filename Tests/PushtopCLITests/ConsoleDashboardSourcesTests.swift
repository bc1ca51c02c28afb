import PusherChannels
import PushtopConfig
import PushtopDashboard
import Testing

@testable import PushtopCLI
@testable import PushtopDashboard

/// Which console sources the dashboard opens: the feed of every node it connects to when it knows the app's secret
/// and id, none on Pusher itself (a status saying so instead), and the webhook receiver with `--webhook-listen`.
@Suite struct ConsoleDashboardSourcesTests {
    static let credentials = KnownCredentials(key: "k", secret: "s3cret", appID: "7")

    static func options(host: String?, port: Int? = 6001, tls: Bool = false) -> PusherClientOptions {
        PusherClientOptions(
            key: "k", cluster: "eu", host: host, port: port, connection: ConnectionConfiguration(useTLS: tls))
    }

    @Test func everyNodeOfAServeGetsItsFeed() throws {
        let nodes = [NodeAddress(host: "10.0.0.1", port: 6001), NodeAddress(host: "10.0.0.2", port: 6002)]
        let sources = try #require(
            ConsoleSources.dashboard(
                nodes: nodes, options: Self.options(host: "10.0.0.1", tls: true), credentials: Self.credentials,
                webhookListen: nil))
        #expect(sources.feeds.map(\.description) == ["10.0.0.1:6001", "10.0.0.2:6002"])
        #expect(sources.feeds.allSatisfy { $0.tls && $0.appID == "7" && $0.key == "k" && $0.secret == "s3cret" })
        #expect(sources.webhooks == nil && sources.absent.isEmpty)
        #expect(
            ConsoleSources.node(of: Self.options(host: "h", port: nil, tls: true)) == [
                NodeAddress(host: "h", port: 443)
            ])
    }

    @Test func withoutTheSecretOrTheAppIdThereIsNoFeed() {
        #expect(
            ConsoleSources.dashboard(
                nodes: [NodeAddress(host: "h", port: 1)], options: Self.options(host: "h"), credentials: nil,
                webhookListen: nil) == nil)
        #expect(
            ConsoleSources.dashboard(
                nodes: [NodeAddress(host: "h", port: 1)], options: Self.options(host: "h"),
                credentials: KnownCredentials(key: "k", secret: "s"), webhookListen: nil) == nil)
    }

    @Test func pusherItselfHasNoFeedButWebhooksCanBeReceived() throws {
        let sources = try #require(
            ConsoleSources.dashboard(
                nodes: ConsoleSources.node(of: Self.options(host: nil)), options: Self.options(host: nil),
                credentials: Self.credentials, webhookListen: NodeAddress(host: "127.0.0.1", port: 0)))
        #expect(sources.feeds.isEmpty)
        guard case .unavailable(let text)? = sources.absent.first?.state else {
            Issue.record("expected an unavailable status, got \(sources.absent)")
            return
        }
        #expect(text.contains("--webhook-listen"))
        #expect(sources.webhooks?.port == 0)
        #expect(sources.webhooks?.credentials == [WebhookCredential(appID: "7", key: "k", secret: "s3cret")])
    }
}

/// The dashboard connects once every feed answered (or after a second), so the console shows its own connection.
@Suite struct ConsoleReadinessTests {
    @Test func readyOnceEveryFeedAnsweredAndEverythingPassesOn() async {
        let feed = ConsoleFeed()
        let readiness = ConsoleReadiness(feed, sources: 2)
        readiness.update(ConsoleSourceStatus(name: "a:1", kind: .serverFeed, state: .connecting))
        readiness.update(ConsoleSourceStatus(name: "w", kind: .webhooks, state: .live))
        readiness.update(ConsoleSourceStatus(name: "a:1", kind: .serverFeed, state: .live))
        #expect(!readiness.isReady)
        readiness.update(ConsoleSourceStatus(name: "b:2", kind: .serverFeed, state: .failed("refused")))
        #expect(readiness.isReady)
        await readiness.waitUntilLive(timeout: .seconds(5))  // returns at once
        readiness.post([ConsoleRow(type: .gap, timeMs: 1)])
        let taken = feed.take()
        #expect(taken.rows == [ConsoleRow(type: .gap, timeMs: 1)])
        #expect(taken.sources.map(\.name).sorted() == ["a:1", "b:2", "w"])
    }

    @Test func aFeedThatNeverAnswersHoldsTheDashboardOnlyUntilTheTimeout() async {
        let readiness = ConsoleReadiness(ConsoleFeed(), sources: 1)
        let timeout = Duration.milliseconds(200)
        let clock = ContinuousClock()
        let took = await clock.measure { await readiness.waitUntilLive(timeout: timeout) }
        #expect(!readiness.isReady)
        // Held for the timeout, then let go, not for ever: the bound leaves a loaded machine 10 s on top.
        #expect(took >= timeout && took < timeout + .seconds(10), "held for \(took)")
    }
}
