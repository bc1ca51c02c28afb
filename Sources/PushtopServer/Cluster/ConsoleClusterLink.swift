import Logging
import NIOCore
import PusherProtocol
import PushtopRedis
import Synchronization

/// The debug feed across a cluster: a node with a listener says so, and the other nodes forward their rows to it,
/// in batches, on the app's console channel (`PREFIX:APP_ID:console`, beside the cluster's bus).
///
/// - A node with at least one listener publishes `{"k":"on","o":NODE}` at once and then every
///   ``announceInterval``. A node that hears another node's announcement forwards its own rows for the next
///   ``ConsoleHub/remoteListeningTTL`` (so forwarding stops at most that long after the last listener left).
/// - Forwarded rows go out as `{"k":"rows","o":NODE,"r":[row,…]}`, one `PUBLISH` per batch (the rows queued since
///   the last one, gathered for a few milliseconds), each row already tagged with its node id. A node ignores its
///   own messages; forwarded rows reach only the listeners of the node that receives them.
/// - With nobody listening anywhere no node publishes anything: a cluster with no listener pays nothing.
final class ConsoleClusterLink: Sendable {
    static let announceInterval: Duration = .seconds(1)
    /// How long a batch gathers rows before it is published.
    static let batchWindow: Duration = .milliseconds(5)

    let console: ConsoleHub
    let redis: RedisClient
    /// The app's console channel.
    let channel: String
    let logger: Logger

    init(console: ConsoleHub, redis: RedisClient, channel: String, logger: Logger) {
        self.console = console
        self.redis = redis
        self.channel = channel
        self.logger = logger
    }

    /// Announces this node's listeners and forwards its rows until the task is cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.announce() }
            group.addTask { await self.forward() }
        }
    }

    private func announce() async {
        while !Task.isCancelled {
            if console.hasLocalListeners { await publish(Self.announcement(node: console.nodeID)) }
            try? await Task.sleep(for: Self.announceInterval)
        }
    }

    private func forward() async {
        await withTaskCancellationHandler {
            var announced = false
            for await _ in console.bell {
                // The first listener of this node: the other nodes start forwarding now, not at the next tick.
                let listening = console.hasLocalListeners
                if listening && !announced { await publish(Self.announcement(node: console.nodeID)) }
                announced = listening
                try? await Task.sleep(for: Self.batchWindow)
                let rows = console.takeOutgoing()
                if !rows.isEmpty { await publish(Self.batch(rows, node: console.nodeID)) }
            }
        } onCancel: {
            console.finishAll()
        }
    }

    private func publish(_ text: String) async {
        do {
            _ = try await redis.publish(.string(text), to: channel)
        } catch {
            logger.debug("could not publish on the console channel", metadata: ["error": "\(error)"])
        }
    }

    static func announcement(node: String) -> String {
        JSONValue.orderedObject([("k", "on"), ("o", .string(node))])
    }

    static func batch(_ rows: [ConsoleRow], node: String) -> String {
        var text = "{\"k\":\"rows\",\"o\":\(JSONValue.string(node).jsonString),\"r\":["
        for (index, row) in rows.enumerated() {
            if index > 0 { text += "," }
            text += row.jsonLine
        }
        text += "]}"
        return text
    }

    /// What arrived on the console channel: another node's announcement or rows.
    static func receive(_ payload: ByteBuffer, into console: ConsoleHub) {
        guard let object = JSONValue.parseIfJSON(String(buffer: payload))?.objectValue,
            let origin = object["o"]?.stringValue, origin != console.nodeID
        else { return }
        switch object["k"]?.stringValue {
        case "on":
            console.remoteListening()
        case "rows":
            guard console.hasLocalListeners, let rows = object["r"]?.arrayValue else { return }
            console.receive(forwarded: rows.compactMap(ConsoleRow.init(json:)))
        default:
            return
        }
    }
}
