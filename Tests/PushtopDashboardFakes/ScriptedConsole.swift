import PusherProtocol
import PushtopDashboard
import Synchronization

/// A debug console's sources without a network, for `dashboard-preview --console MODE` and the tests: the
/// sources' states, a feed's snapshot, a scripted scenario with a row of every type, then a steady stream.
public final class ScriptedConsole: Sendable {
    /// What the sources are.
    public enum Mode: String, Sendable, CaseIterable {
        /// A live `pushtop serve` feed and a webhook receiver: the scenario, then the stream.
        case demo
        /// No source at all.
        case none
        /// A webhook receiver that has received nothing.
        case webhooks
        /// A server that offers no feed (not a `pushtop serve`).
        case unavailable
    }

    public let feed = ConsoleFeed()
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    public init() {}

    /// The feed's source name in the scripts.
    public static let node = "127.0.0.1:6001"
    public static let webhooks = "webhooks on 127.0.0.1:9000"

    /// Starts the mode's script; the stream posts `rowsPerSecond` rows (in batches every 50 ms).
    public func start(_ mode: Mode, rowsPerSecond: Int = 5, now: @escaping @Sendable () -> Double) {
        let feed = self.feed
        switch mode {
        case .none:
            return
        case .webhooks:
            feed.update(ConsoleSourceStatus(name: ScriptedConsole.webhooks, kind: .webhooks, state: .live))
            return
        case .unavailable:
            feed.update(
                ConsoleSourceStatus(
                    name: ScriptedConsole.node, kind: .serverFeed,
                    state: .unavailable(
                        "this server offers no debug feed (404 on /apps/1/console): not a pushtop serve")
                ))
            return
        case .demo:
            break
        }
        let t = Task.detached {
            feed.update(ConsoleSourceStatus(name: ScriptedConsole.node, kind: .serverFeed, state: .live))
            feed.update(ConsoleSourceStatus(name: ScriptedConsole.webhooks, kind: .webhooks, state: .live))
            let start = Int64(now() * 1000)
            feed.post(
                snapshot: ConsoleSnapshot(
                    source: ScriptedConsole.node, node: "node-a", appID: "1", connections: 2,
                    occupiedChannels: ["market-data", "presence-lobby"], timeMs: start))
            feed.post(ScriptedConsole.scenario(at: start))
            var n = 0
            var due = 0.0
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 50_000_000)
                due += Double(rowsPerSecond) / 20
                var rows: [ConsoleRow] = []
                while due >= 1 {
                    rows.append(ScriptedConsole.streamRow(n, at: Int64(now() * 1000)))
                    n += 1
                    due -= 1
                }
                feed.post(rows)
            }
        }
        task.withLock { old in
            old?.cancel()
            old = t
        }
    }

    public func finish() {
        task.withLock { $0?.cancel() }
    }

    static func row(_ type: ConsoleRowType, _ time: Int64, _ fill: (inout ConsoleRow) -> Void) -> ConsoleRow {
        var r = ConsoleRow(type: type, timeMs: time)
        r.node = "node-a"
        r.appID = "1"
        r.source = .server
        fill(&r)
        return r
    }

    /// A row of `channel` alone (occupied, vacated) or of `socket` on it, then `fill`'s other fields.
    static func row(
        _ type: ConsoleRowType, _ time: Int64, socket: String? = nil, channel: String,
        _ fill: (inout ConsoleRow) -> Void = { _ in }
    ) -> ConsoleRow {
        var r = row(type, time) { _ in }
        r.socketID = socket
        r.channel = channel
        fill(&r)
        return r
    }

    /// A row of every type: socket 100.1 connects, subscribes, triggers and leaves (close 4200); 200.2 joins
    /// `presence-lobby` and is refused `private-secret`; an API message, errors, webhooks, a gap.
    public static func scenario(at t: Int64) -> [ConsoleRow] {
        [
            row(.connection, t) {
                $0.socketID = "100.1"
                $0.remoteAddress = "127.0.0.1:50001"
                $0.origin = "http://localhost:8080"
                $0.protocolVersion = 7
                $0.clientLibrary = "js"
                $0.clientVersion = "8.6.0"
                $0.tls = false
            },
            row(.subscribed, t + 1, socket: "100.1", channel: "private-orders"),
            row(.occupied, t + 1, channel: "private-orders"),
            row(.connection, t + 2) {
                $0.socketID = "200.2"
                $0.remoteAddress = "127.0.0.1:50002"
                $0.clientLibrary = "pysher"
                $0.clientVersion = "1.0.8"
                $0.protocolVersion = 7
            },
            row(.subscribed, t + 3, socket: "200.2", channel: "presence-lobby") {
                $0.userID = "ada"
            },
            row(.presenceEvent, t + 3, socket: "200.2", channel: "presence-lobby") {
                $0.event = "member_added"
                $0.userID = "ada"
                $0.userInfo = .object(["name": .string("Ada Lovelace")])
            },
            row(.apiMessage, t + 4) {
                $0.channel = "private-orders"
                $0.channels = ["private-orders"]
                $0.event = "order-created"
                $0.data = #"{"order":17,"item":"teapot","qty":2}"#
                $0.dataBytes = 36
                $0.remoteAddress = "10.0.0.5"
                $0.batch = false
            },
            row(.clientEvent, t + 5, socket: "100.1", channel: "private-orders") {
                $0.event = "client-typing"
                $0.data = #"{"typing":true}"#
                $0.dataBytes = 15
            },
            row(.error, t + 6, socket: "200.2", channel: "private-secret") {
                $0.code = 4009
                $0.reason = "subscription refused: the auth signature does not match"
                $0.rule = "signature"
            },
            row(.clientError, t + 6, socket: "200.2", channel: "presence-lobby") {
                $0.event = "client-spam"
                $0.code = 4301
                $0.reason = "client event rate limit: 10 per second"
                $0.rule = "client_events"
            },
            row(.apiError, t + 7) {
                $0.status = 401
                $0.reason = "auth_timestamp 700 s old (the limit is 600 s)"
                $0.rule = "timestamp"
                $0.url = "/apps/1/events"
                $0.remoteAddress = "10.0.0.9"
            },
            row(.webhookSent, t + 8) {
                $0.status = 200
                $0.url = "http://127.0.0.1:9000/hooks"
                $0.attempt = 1
                $0.events = ["channel_occupied"]
            },
            row(.webhookFailed, t + 9) {
                $0.status = 500
                $0.url = "http://127.0.0.1:9000/hooks"
                $0.attempt = 2
                $0.events = ["member_added"]
            },
            row(.unsubscribed, t + 10, socket: "100.1", channel: "private-orders"),
            row(.vacated, t + 10, channel: "private-orders"),
            row(.disconnection, t + 11) {
                $0.socketID = "100.1"
                $0.code = 4200
                $0.reason = "going away"
                $0.closedBy = .client
                $0.lifetimeMs = 11
                $0.channels = []
            },
            row(.gap, t + 12) { $0.dropped = 3 },
            row(.webhookRejected, t + 13) {
                $0.source = .webhook
                $0.event = "channel_occupied"
                $0.expectedSignature = "9f2c1a7be0d4c5e6f7a8b9c0d1e2f3a4"
                $0.receivedSignature = "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"
                $0.cause = "wrong secret: the key matches this app but the signature does not"
            },
            row(.webhookProblem, t + 14) {
                $0.source = .webhook
                $0.event = "member_removed"
                $0.problem = "no_grace"
                $0.cause = "member_removed 0.1 s after the disconnection: Pusher waits up to 3 s"
            },
        ]
    }

    /// The stream: API messages on `market-data` (price-update) and a socket of its own connecting and leaving now
    /// and then.
    public static func streamRow(_ n: Int, at t: Int64) -> ConsoleRow {
        switch n % 10 {
        case 3:
            return row(.connection, t) {
                $0.socketID = "300.\(n / 10)"
                $0.remoteAddress = "127.0.0.1:\(51000 + n % 1000)"
                $0.clientLibrary = "js"
                $0.clientVersion = "8.6.0"
            }
        case 8:
            return row(.disconnection, t) {
                $0.socketID = "300.\(n / 10)"
                $0.code = 4200
                $0.closedBy = .client
            }
        case 5:
            return row(.clientEvent, t) {
                $0.socketID = "300.\(n / 10)"
                $0.channel = "private-chat"
                $0.event = "client-message"
                $0.data = #"{"text":"hello \#(n)"}"#
            }
        default:
            return row(.apiMessage, t) {
                $0.channel = "market-data"
                $0.channels = ["market-data"]
                $0.event = "price-update"
                $0.data = #"{"symbol":"BTC","price":\#(60000 + n)}"#
                $0.dataBytes = 32
                $0.remoteAddress = "10.0.0.5"
            }
        }
    }
}
