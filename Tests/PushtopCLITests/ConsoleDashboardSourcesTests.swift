import PusherChannels
import PushtopDashboard
import Testing

@testable import PushtopCLI

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
