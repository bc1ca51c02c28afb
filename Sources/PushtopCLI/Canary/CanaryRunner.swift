import Foundation
import PusherChannels
import PusherProtocol
import PushtopDashboard
import PushtopKit

/// Runs `pushtop canary`: one subscriber connection per node, sequence-numbered events published through the
/// nodes' HTTP APIs in turn, and the audit's findings printed as they happen.
actor CanaryRunner {
    /// One node: its name (`HOST:PORT`), its connection and its HTTP API.
    struct Node {
        var name: String
        var client: PusherClient
        var api: PusherAPIClient
    }

    let nodes: [Node]
    let channel: String
    let rate: Double
    /// Seconds to publish for; `nil`: until SIGINT/SIGTERM.
    let duration: Double?
    let reportEvery: Double
    private var audit: CanaryAudit
    private let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
    private let write: @Sendable (String) -> Void

    init(
        nodes: [Node], channel: String, rate: Double, duration: Double?, grace: Double, reportEvery: Double,
        write: @escaping @Sendable (String) -> Void = { StandardStreams.writeOut($0 + "\n") }
    ) {
        self.nodes = nodes
        self.channel = channel
        self.rate = rate
        self.duration = duration
        self.reportEvery = reportEvery
        self.write = write
        audit = CanaryAudit(nodes: nodes.map(\.name), grace: grace)
    }

    private static var now: Double { Date().timeIntervalSince1970 }

    /// Runs to the end (or a signal); returns the final audit.
    func run() async -> CanaryAudit {
        write(
            CanaryLine.object([
                ("type", .string("start")), ("channel", .string(channel)),
                ("nodes", .raw("[" + nodes.map { CanaryLine.quote($0.name) }.joined(separator: ",") + "]")),
                ("rate", .ms(rate)), ("duration", duration.map { .ms($0) } ?? .string("forever")),
            ]))
        var consumers: [Task<Void, Never>] = []
        for node in nodes {
            let (events, continuation) = AsyncStream.makeStream(of: [ClientEvent].self, bufferingPolicy: .unbounded)
            node.client.onEventBatch { continuation.yield($0) }
            consumers.append(Task { for await batch in events { self.handle(batch, node: node.name) } })
            try? await node.client.subscribe(channel)
            await node.client.connect()
        }
        await waitUntilSubscribed()
        let checker = Task { await self.checkLoop() }
        await publishUntilDone()
        // Let the last canaries arrive, then settle what has not.
        let deadline = Self.now + audit.grace
        while Self.now < deadline, !allArrived() { try? await Task.sleep(for: .milliseconds(20)) }
        // Wait for the checker to stop: a report of its own after the summary would make the summary not last.
        checker.cancel()
        await checker.value
        for f in audit.finish(now: Self.now) { write(CanaryLine.finding(f)) }
        report()
        // The summary is the last line: closing the connections below is not news.
        finished = true
        write(CanaryLine.summary(audit))
        for node in nodes { await node.client.shutdown(closeTimeout: .seconds(1)) }
        for c in consumers { c.cancel() }
        return audit
    }

    /// Waits until every node is subscribed, or 10 s (a node still down counts its misses as away), and warns
    /// about the nodes that are not.
    private func waitUntilSubscribed() async {
        let ready = Self.now + 10
        while Self.now < ready, !nodes.allSatisfy({ audit.tallies[$0.name]!.isAvailable }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        for node in nodes where !audit.tallies[node.name]!.isAvailable {
            write(
                CanaryLine.object([
                    ("type", .string("warning")), ("node", .string(node.name)),
                    ("message", .string("not subscribed after 10 s; publishing anyway")),
                ]))
        }
    }

    /// Publishes a canary every `1 / rate` seconds, until the duration is over or a stop is requested.
    private func publishUntilDone() async {
        let start = Self.now
        var seq = 0
        var next = start
        while !stopRequested {
            if let duration, Self.now - start >= duration { return }
            let wait = next - Self.now
            if wait > 0 {
                // Sleep in short steps so that a signal ends the run at once.
                let until = Self.now + wait
                while Self.now < until {
                    if stopRequested { return }
                    try? await Task.sleep(for: .milliseconds(min(50, max(1, Int((until - Self.now) * 1000)))))
                }
            }
            if stopRequested { return }
            seq += 1
            await publish(seq)
            next += 1 / rate
            if next < Self.now - 1 { next = Self.now }  // fell behind (a slow API): do not burst to catch up
        }
    }

    private var stopRequested = false
    private var finished = false

    /// Ends the run early (a signal).
    func requestStop() { stopRequested = true }

    private func allArrived() -> Bool {
        nodes.allSatisfy { node in
            let t = audit.tallies[node.name]!
            return t.received + t.lost + t.away >= t.published || !t.isAvailable
        }
    }

    /// Publishes `seq` through the next node in turn; a node whose API fails passes the turn to the next.
    private func publish(_ seq: Int) async {
        for attempt in 0..<nodes.count {
            let node = nodes[(seq - 1 + attempt) % nodes.count]
            let data = #"{"seq":\#(seq),"via":\#(CanaryLine.quote(node.name)),"run":"\#(run)"}"#
            audit.published(seq: seq, via: node.name, at: Self.now)
            do {
                let response = try await node.api.trigger(channels: [channel], event: "pushtop-canary", data: data)
                if (200..<300).contains(response.status) { return }
                audit.cancel(seq: seq)
                write(
                    CanaryLine.object([
                        ("type", .string("publish_error")), ("via", .string(node.name)), ("seq", .int(seq)),
                        ("status", .int(response.status)), ("message", .string(String(response.body.prefix(200)))),
                    ]))
            } catch {
                audit.cancel(seq: seq)
                write(
                    CanaryLine.object([
                        ("type", .string("publish_error")), ("via", .string(node.name)), ("seq", .int(seq)),
                        ("message", .string(String(describing: error))),
                    ]))
            }
        }
    }

    private func checkLoop() async {
        var lastReport = Self.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
            if Task.isCancelled { return }
            for f in audit.check(now: Self.now) { write(CanaryLine.finding(f)) }
            if Self.now - lastReport >= reportEvery {
                lastReport = Self.now
                report()
            }
        }
    }

    /// The per-node latency of the last window.
    private func report() {
        for node in nodes {
            let window = audit.takeWindow(node: node.name)
            let t = audit.tallies[node.name]!
            write(
                CanaryLine.object([
                    ("type", .string("latency")), ("node", .string(node.name)),
                    ("received", .int(window.values.count)), ("p50_ms", .ms(window.percentile(50))),
                    ("p99_ms", .ms(window.percentile(99))), ("lost", .int(t.lost)), ("away", .int(t.away)),
                ]))
        }
    }

    private func handle(_ batch: [ClientEvent], node: String) {
        guard !finished else { return }
        for event in batch {
            switch event {
            case .subscribed(let name, _) where name == channel:
                for f in audit.availability(node: node, available: true, at: Self.now) { write(CanaryLine.finding(f)) }
            case .state(let change) where change.current != .connected:
                for f in audit.availability(node: node, available: false, at: Self.now) { write(CanaryLine.finding(f)) }
            case .subscriptionError(let name, _, let message) where name == channel:
                write(
                    CanaryLine.object([
                        ("type", .string("subscription_error")), ("node", .string(node)),
                        ("message", .string(message)),
                    ]))
            case .event(let e) where e.channel == channel && e.name == "pushtop-canary":
                guard let data = e.data, data["run"]?.stringValue == run, let seq = data["seq"]?.intValue else {
                    continue
                }
                let at = e.receivedAt > 0 ? e.receivedAt : Self.now
                for f in audit.received(seq: seq, via: data["via"]?.stringValue, node: node, at: at) {
                    write(CanaryLine.finding(f))
                }
            default:
                break
            }
        }
    }
}
