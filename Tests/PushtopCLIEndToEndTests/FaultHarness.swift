import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

/// The real `pushtop watch` subscribed to several channels of the embedded server through a ``FaultProxy``, with
/// numbered events published in-process: injects faults and keeps the books (``DeliveryLedger``).
///
/// Each cycle: wait until every channel is subscribed (again), publish counted events and wait for all of them,
/// inject the fault while publishing uncounted events, and time the recovery (fault to every channel subscribed
/// again).
actor FaultHarness {
    /// A fault the harness can inject.
    enum Fault: Sendable, CustomStringConvertible {
        case cut(FaultProxy.Cut)
        /// Stop forwarding for this many seconds (longer than the client's activity and pong timeouts).
        case stall(seconds: Double)
        case truncate
        /// No listener (connections refused) for this many seconds.
        case listenerDown(seconds: Double)
        /// Latency and a bandwidth limit during the counted window; nothing is cut.
        case shaped(latencyMs: Int, bytesPerSecond: Int)

        var description: String {
            switch self {
            case .cut(let how): return "cut-\(how.rawValue)"
            case .stall(let s): return "stall-\(s)s"
            case .truncate: return "truncate"
            case .listenerDown(let s): return "listener-down-\(s)s"
            case .shaped(let ms, let rate): return "latency-\(ms)ms-\(rate)B/s"
            }
        }

        /// The fault's name without its parameters, for the figures.
        var kind: String {
            switch self {
            case .cut(let how): return "cut-\(how.rawValue)"
            case .stall: return "stall"
            case .truncate: return "truncate"
            case .listenerDown: return "listener-down"
            case .shaped: return "latency+throttle"
            }
        }

        /// Whether the fault ends the client's connection (and must be followed by a resubscription).
        var cutsConnection: Bool {
            if case .shaped = self { return false }
            return true
        }
    }

    /// The figures of a run.
    struct Figures: Sendable, CustomStringConvertible {
        var faults: [String: Int] = [:]
        var recoveries: [Double] = []
        var ledger = DeliveryLedger()
        var missedResubscriptions = 0
        /// Counted windows in which watch lost its connection without a fault (the suites beside this one kept the
        /// server, this process, from answering a ping in time): run again, their events not counted.
        var unforcedReconnections = 0
        /// What went wrong, for the failure message (the first few).
        var notes: [String] = []

        func percentile(_ p: Double) -> Double {
            guard !recoveries.isEmpty else { return 0 }
            let sorted = recoveries.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        }

        var description: String {
            let kinds = faults.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return """
                faults: \(faults.values.reduce(0, +)) (\(kinds))
                events: published \(ledger.published), counted \(ledger.counted), delivered \(ledger.delivered)
                losses: \(ledger.losses), duplicates: \(ledger.duplicates), reorders: \(ledger.reorders), \
                missed resubscriptions: \(missedResubscriptions), windows run again after a reconnection without \
                a fault: \(unforcedReconnections)
                recovery (fault -> every channel subscribed again), \(recoveries.count) faults: \
                p50 \(ms(percentile(0.5))) ms, p99 \(ms(percentile(0.99))) ms, max \(ms(recoveries.max() ?? 0)) ms
                """ + notes.prefix(10).map { "\n  " + $0 }.joined()
        }

        private func ms(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }
    }

    static let channels = ["faults-a", "faults-b", "private-faults-c", "presence-faults-d"]
    /// The client's activity and pong timeouts: a stall is detected after about the sum. The pong timeout is longer
    /// than the activity timeout: the server is this test process, which the suites running beside it can keep
    /// from answering for a second or more (a spurious reconnection loses a window's events, as Pusher would).
    static let activityTimeout = 1.0
    static let pongTimeout = 3.0
    /// How long a stall outlasts the client's detection (about activity + pong timeout after the last message): a
    /// stall that ends first is never noticed and nothing reconnects. On a loaded machine the client's timers fire
    /// late; a margin of 1.5 s was missed in two full runs of the CLI end-to-end target.
    static let stallMargin = 6.0

    let server: EmbeddedServer
    let proxy: FaultProxy
    let watch: PushtopProcess
    private(set) var figures = Figures()
    private var consumed = 0
    /// The line index of each channel's latest `subscribed` line.
    private var subscribedLine: [String: Int] = [:]
    private var publishing: Task<Void, Never>?
    private var lastFault: String?

    private init(server: EmbeddedServer, proxy: FaultProxy, watch: PushtopProcess) {
        self.server = server
        self.proxy = proxy
        self.watch = watch
    }

    static func start() async throws -> FaultHarness {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let proxy = try await FaultProxy.start(upstreamPort: server.port)
        let watch = try PushtopProcess(
            [
                "watch", "--key", server.configuration.app.key, "--host", "127.0.0.1", "--port", String(proxy.port),
                "--no-tls", "--auth-endpoint", server.authEndpointURL!, "--user-id", "fault-watcher",
                "--activity-timeout", String(activityTimeout), "--pong-timeout", String(pongTimeout),
                "--reconnect", "exponential", "--min-delay", "0.1", "--max-delay", "0.5", "--max-retries", "0",
            ] + channels)
        let harness = FaultHarness(server: server, proxy: proxy, watch: watch)
        try await harness.waitForResubscription(after: -1, timeout: 30)
        return harness
    }

    func stop() async {
        publishing?.cancel()
        watch.signal(SIGINT)
        _ = try? await watch.exitCode(timeout: 10)
        await proxy.shutdown()
        await server.shutdown()
    }

    /// Runs `faults` (the cycles and the final window), then stops the harness and returns the figures; a failure
    /// is thrown with the figures so far.
    func run(_ faults: @Sendable (FaultHarness) async throws -> Void) async throws -> Figures {
        do {
            try await faults(self)
        } catch {
            await stop()
            throw FaultRunFailure(error: error, figures: figures)
        }
        await stop()
        return figures
    }

    struct FaultRunFailure: Error, CustomStringConvertible {
        var error: any Error
        var figures: Figures
        var description: String { "\(error)\n\(figures)" }
    }

    /// Nothing counted lost, duplicated or reordered, and every channel subscribed again after every fault.
    static func expectDelivery(_ figures: Figures, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(figures.ledger.losses == 0, sourceLocation: sourceLocation)
        #expect(figures.ledger.duplicates == 0, sourceLocation: sourceLocation)
        #expect(figures.ledger.reorders == 0, sourceLocation: sourceLocation)
        #expect(figures.missedResubscriptions == 0, sourceLocation: sourceLocation)
    }

    /// Runs one cycle: a counted window of `rounds` events per channel, then the fault.
    func cycle(_ fault: Fault, rounds: Int = 20) async throws {
        figures.faults[fault.kind, default: 0] += 1
        if case .shaped(let ms, let rate) = fault { proxy.shape(latency: .milliseconds(ms), bytesPerSecond: rate) }
        try await countedWindow(rounds: rounds)
        lastFault = fault.description
        if case .shaped = fault {
            proxy.shape()
            return
        }
        let mark = watch.lineCount
        let start = ContinuousClock.now
        startUncountedPublishing()
        switch fault {
        case .cut(let how): proxy.cutAll(how)
        case .stall(let seconds): proxy.stall(for: .milliseconds(Int(seconds * 1000)))
        case .truncate: proxy.truncateNextServerChunk()
        case .listenerDown(let seconds): try await proxy.takeDown(for: .milliseconds(Int(seconds * 1000)))
        case .shaped: break
        }
        do {
            try await waitForResubscription(after: mark - 1, timeout: 30)
            figures.recoveries.append((ContinuousClock.now - start).seconds)
        } catch {
            stopUncountedPublishing()
            let since = watch.lines(from: mark)
            let lostConnection = Self.changedState(since)
            let events = since.filter { $0.contains(#""type":"event""#) }.count
            figures.notes.append(
                "\(fault): \(since.count) lines since (\(events) events, a state change: \(lostConnection)); "
                    + "watch said: \(watchSaid); proxy: \(proxy.openConnections) open of \(proxy.acceptedConnections)")
            if case .stall(let seconds) = fault, !lostConnection, seconds < 40 {
                // The stall ended before watch's timers fired (a loaded machine starves them), so nothing was
                // noticed: not a missed resubscription. Again, twice as long; a client that never notices a stall
                // fails that one too.
                figures.notes.append("\(fault): over before watch noticed it; stalled again for \(seconds * 2) s")
                try await cycle(.stall(seconds: seconds * 2), rounds: rounds)
                return
            }
            figures.missedResubscriptions += 1
            let unsubscribed = Self.channels.filter { (subscribedLine[$0] ?? -1) < mark }
            figures.notes.append("\(fault): not subscribed again within 30 s: \(unsubscribed)")
        }
        stopUncountedPublishing()
    }

    /// Whether watch printed a change of connection state among `lines`.
    private static func changedState(_ lines: [String]) -> Bool {
        lines.contains { $0.contains(#""type":"state""#) }
    }

    /// Watch's last three lines on stderr, for a note.
    private var watchSaid: String {
        watch.stderr.split(separator: "\n").suffix(3).joined(separator: " | ")
    }

    /// A last counted window, after the last fault.
    func finalWindow(rounds: Int = 20) async throws {
        try await countedWindow(rounds: rounds)
    }

    /// Publishes counted events and waits until all arrived; those that did not are losses. A window in which
    /// watch lost its connection on its own is run again (at most twice): Pusher has no replay, so what was
    /// published while it reconnected is not owed, and the premise of counting (subscribed throughout) broke.
    private func countedWindow(rounds: Int, attempt: Int = 1) async throws {
        let windowStart = watch.lineCount
        for _ in 0..<rounds {
            try await publishRound(counted: true)
        }
        var arrived = true
        do {
            try await waitUntil(timeout: 20, "every counted event") { self.consumeAndCheckDelivered() }
        } catch {
            arrived = false
        }
        let said = watch.lines(from: windowStart).filter { !$0.contains(#""type":"event""#) }
        // Any change of state: lost during the window, or still reconnecting when it began (after the shaped
        // window, which the harness does not wait out with a resubscription).
        let reconnected = Self.changedState(said)
        if reconnected, !arrived, attempt < 3 {
            figures.unforcedReconnections += 1
            figures.ledger.forgiveWindow()
            figures.notes.append(
                "watch reconnected during a counted window after \(lastFault ?? "the start"): \(watchSaid)")
            try await waitForResubscription(after: windowStart, timeout: 30)
            try await countedWindow(rounds: rounds, attempt: attempt + 1)
            return
        }
        if !arrived {
            // Counted as losses; the run goes on so that a soak reports every figure. What watch said meanwhile
            // (state changes, reconnection delays, errors) tells a lost connection from lost events.
            figures.notes.append(
                "lost \(figures.ledger.missing()) after \(lastFault ?? "the start"); watch meanwhile: \(Array(said.prefix(8)))"
            )
        }
        figures.ledger.closeWindow()
    }

    private func consumeAndCheckDelivered() -> Bool {
        consume()
        return figures.ledger.allDelivered
    }

    private func publishRound(counted: Bool) async throws {
        var batch: [PublishRequest] = []
        for channel in Self.channels {
            let n = figures.ledger.publish(on: channel, counted: counted)
            batch.append(PublishRequest(channels: [channel], name: "numbered", data: #"{"n":\#(n)}"#))
        }
        try await server.hub.publish(batch: batch)
    }

    private func startUncountedPublishing() {
        publishing = Task {
            while !Task.isCancelled {
                try? await self.publishRound(counted: false)
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    private func stopUncountedPublishing() {
        publishing?.cancel()
        publishing = nil
    }

    /// Waits until every channel has a `subscribed` line after line `mark`.
    private func waitForResubscription(after mark: Int, timeout: Double) async throws {
        try await waitUntil(timeout: timeout, "every channel subscribed again after line \(mark)") {
            self.consumeAndCheckSubscribed(after: mark)
        }
    }

    private func consumeAndCheckSubscribed(after mark: Int) -> Bool {
        consume()
        return Self.channels.allSatisfy { (subscribedLine[$0] ?? -1) > mark }
    }

    /// Reads the lines watch printed since the last call into the books.
    private func consume() {
        let lines = watch.lines(from: consumed)
        for (offset, line) in lines.enumerated() {
            guard case .object(let fields)? = try? JSONValue(parsing: line), case .string(let type)? = fields["type"],
                case .string(let channel)? = fields["channel"]
            else { continue }
            switch type {
            case "subscribed":
                subscribedLine[channel] = consumed + offset
            case "event":
                if case .number(let n)? = fields["data"]?["n"] {
                    figures.ledger.receive(on: channel, number: Int(n))
                }
            default:
                break
            }
        }
        consumed += lines.count
    }
}

extension Duration {
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
