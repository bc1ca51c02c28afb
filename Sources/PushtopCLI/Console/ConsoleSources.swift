import Logging
import PusherProtocol
import PushtopConfig
import PushtopDashboard

/// The sources of one app's debug console: the debug feed of each `pushtop serve` node, and pushtop's webhook
/// receiver. ``run(into:)`` starts them all and merges what they see into one sink.
///
/// Several nodes of one `--redis` cluster: every node's feed carries every node's rows, so each feed passes on only
/// the rows of the node that answered (``ConsoleFeedClient/ownNodeOnly``); every row then arrives once, from its
/// own node, and a node that cannot be read costs only its own rows.
public struct ConsoleSources: Sendable {
    public var feeds: [ConsoleFeedEndpoint]
    public var webhooks: WebhookReceiverSettings?
    /// Sources known to be absent, reported as they are (Pusher itself has no feed: its status says so).
    public var absent: [ConsoleSourceStatus]

    public init(
        feeds: [ConsoleFeedEndpoint] = [], webhooks: WebhookReceiverSettings? = nil, absent: [ConsoleSourceStatus] = []
    ) {
        self.feeds = feeds
        self.webhooks = webhooks
        self.absent = absent
    }

    public var isEmpty: Bool { feeds.isEmpty && webhooks == nil && absent.isEmpty }

    /// The name of the webhook receiver's source, as its status shows it.
    static func webhooksName(_ address: String) -> String { "webhooks on \(address)" }

    /// Runs every source until the task is cancelled or every one of them gave up; returns the final states
    /// (by source name) of those that gave up.
    @discardableResult
    public func run(into sink: some ConsoleSink, logger: Logger = Logger(label: "pushtop.console")) async
        -> [ConsoleSourceStatus]
    {
        for status in absent { sink.update(status) }
        let ownNodeOnly = feeds.count > 1
        return await withTaskGroup(of: ConsoleSourceStatus?.self) { group in
            for endpoint in feeds {
                group.addTask {
                    let name = endpoint.description
                    let client = ConsoleFeedClient(endpoint: endpoint, ownNodeOnly: ownNodeOnly, logger: logger)
                    let last = await client.run { event in
                        switch event {
                        case .state(let state):
                            sink.update(ConsoleSourceStatus(name: name, kind: .serverFeed, state: state))
                        case .hello(let snapshot, let cluster):
                            sink.post(snapshot: snapshot, cluster: cluster)
                        case .rows(let rows):
                            sink.post(rows)
                        }
                    }
                    return ConsoleSourceStatus(name: name, kind: .serverFeed, state: last)
                }
            }
            if let webhooks {
                group.addTask {
                    let requested = Self.webhooksName(NodeAddress(host: webhooks.host, port: webhooks.port).description)
                    sink.update(ConsoleSourceStatus(name: requested, kind: .webhooks, state: .connecting))
                    let receiver = WebhookReceiver(settings: webhooks, logger: logger)
                    do {
                        try await receiver.run(
                            listening: { address in
                                sink.listening(requested, address: address)
                                sink.update(ConsoleSourceStatus(name: requested, kind: .webhooks, state: .live))
                            },
                            deliver: { rows in sink.post(rows) })
                        return nil
                    } catch {
                        let failed = ConsoleSourceStatus(
                            name: requested, kind: .webhooks, state: .failed("cannot receive webhooks: \(error)"))
                        sink.update(failed)
                        return failed
                    }
                }
            }
            var ended = absent
            for await result in group {
                if let result, !Task.isCancelled { ended.append(result) }
            }
            return ended
        }
    }
}
