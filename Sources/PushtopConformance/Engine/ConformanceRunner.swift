import AsyncHTTPClient
import Foundation
import NIOSSL
import PusherProtocol

/// Runs the catalogue against a target: checks once that the server is there and accepts the app, then runs the
/// cases (several at once, each on its own channels), and returns the report.
public struct ConformanceRunner: Sendable {
    public var target: ConformanceTarget
    /// The listener for webhooks, when the run checks them.
    public var webhooks: WebhookListener?
    /// Case ids (or id prefixes, `presence.` for a group) to run; empty: all.
    public var only: [String]
    /// Cases at once.
    public var parallel: Int
    /// Seconds a case may take before it fails.
    public var caseTimeout: Double
    /// The prefix of every channel of the run (`conform-XXXXXX-`): random, so runs never meet.
    public let runPrefix: String
    /// The server's timings, once ``preflight()`` saw them.
    public let timings = ServerTimings()

    public init(
        target: ConformanceTarget, webhooks: WebhookListener? = nil, only: [String] = [], parallel: Int = 8,
        caseTimeout: Double = 45
    ) {
        self.target = target
        self.webhooks = webhooks
        self.only = only
        self.parallel = max(1, parallel)
        self.caseTimeout = caseTimeout
        self.runPrefix = "conform-" + String(UInt32.random(in: 0...UInt32.max), radix: 16) + "-"
    }

    /// The cases this run takes, each with why it will be skipped (or `nil`).
    public func plan() -> [(ConformanceCase, skip: String?)] {
        ConformanceSuite.cases.filter(selected).map { ($0, skipReason($0)) }
    }

    func selected(_ c: ConformanceCase) -> Bool {
        only.isEmpty
            || only.contains { c.id == $0 || c.id.hasPrefix($0.hasSuffix(".") ? $0 : $0 + ".") || c.id.hasPrefix($0) }
    }

    func skipReason(_ c: ConformanceCase) -> String? {
        if c.needs.contains(.webhooks), webhooks == nil {
            return "no webhook listener: run with --webhook-listen HOST:PORT and point the server's webhooks at it"
        }
        if c.needs.contains(.cluster), target.nodes.count < 2 {
            return "needs two nodes of one cluster: give --node HOST:PORT twice or more"
        }
        if c.needs.contains(.destructive), !target.destructive {
            return "opens many connections or sends many messages: run with --destructive"
        }
        if let wait = c.serverWait, !target.long {
            return
                "waits on the server's own clocks, up to \(Self.duration(wait.seconds(activityTimeout: timings.activityTimeout)))"
                + "\(timings.activityTimeout.map { " (activity_timeout \(Int($0)) s)" } ?? " (activity_timeout + 30 s)")"
                + ": run with --long"
        }
        return nil
    }

    /// The cases of this selection that wait on the server's own clocks, and how long a `--long` run of them takes
    /// against this server: they run at once, so the longest of them (after ``preflight()``, with the server's own
    /// `activity_timeout`).
    public var longRun: (cases: Int, seconds: Double) {
        var long = self
        long.target.long = true
        let waits = long.plan().filter { $0.skip == nil }.compactMap(\.0.serverWait)
        let longest = waits.map { $0.seconds(activityTimeout: timings.activityTimeout) }.max() ?? 0
        return (waits.count, longest)
    }

    /// `95 s`, `3.2 min`.
    static func duration(_ seconds: Double) -> String {
        seconds < 120 ? "\(Int(seconds.rounded())) s" : String(format: "%.1f min", seconds / 60)
    }

    /// One line for the text report, before the run: what `--long` runs and how long it takes against this server.
    public var longRunNote: String? {
        let (count, seconds) = longRun
        guard count > 0 else { return nil }
        let timeout = timings.activityTimeout.map { "activity_timeout \(Int($0)) s" } ?? "activity_timeout unknown"
        if target.long {
            return "\(count) cases wait on the server's own clocks (\(timeout)): this run takes up to about "
                + "\(Self.duration(seconds))"
        }
        return "\(count) cases wait on the server's own clocks (\(timeout)) and are skipped: a --long run takes "
            + "up to about \(Self.duration(seconds)) against this server"
    }

    /// Billable messages the run will cause at most.
    public var plannedMessages: Int { plan().filter { $0.skip == nil }.map { $0.0.messages }.reduce(0, +) }

    func makeHTTPClient() throws -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        if let caFile = target.caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            configuration.tlsConfiguration = tls
        }
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Checks what every case needs: each node answers, the key is known, the secret signs, webhooks arrive.
    public func preflight() async throws(PreflightError) {
        let client: HTTPClient
        do { client = try makeHTTPClient() } catch { throw .unreachable(node: "-", why: "\(error)") }
        let context = makeContext(prefix: runPrefix + "preflight-", client: client, features: FeatureProbe())
        let problem = await check(context)
        await context.finish()
        try? await client.shutdown()
        if let problem { throw problem }
    }

    private func check(_ context: CaseContext) async -> PreflightError? {
        for (index, node) in target.nodes.enumerated() {
            let socket: ProbeSocket
            do {
                socket = try await context.open(node: index)
            } catch {
                return .unreachable(node: node.name, why: "\(error)")
            }
            let frame = await socket.waitFor(max(target.patience, 5)) { frame in
                if frame.isEnd { return true }
                guard let event = frame.message?.event else { return false }
                return event == PusherEventName.connectionEstablished || event == PusherEventName.error
            }
            guard let frame else {
                return .unreachable(
                    node: node.name, why: "no pusher:connection_established within \(max(target.patience, 5)) s")
            }
            if frame.message?.event != PusherEventName.connectionEstablished {
                return .unknownKey(key: target.key, how: SubscribeAnswer.describe(frame))
            }
            if index == 0 { timings.activityTimeout = frame.message?.dataJSON?["activity_timeout"]?.numberValue }
            let answer = await context.request(node: index, method: "GET", path: "/channels")
            guard answer.status == 200 else { return .refusedSignature(node: node.name, answer: answer.description) }
        }
        if let webhooks {
            guard let c = try? await context.connect() else {
                return .unreachable(node: target.nodes[0].name, why: "no connection for the webhook check")
            }
            let channel = context.channel("", "occupied")
            _ = await context.subscribe(c, channel)
            let wait = 10.0
            if await webhooks.waitFor(wait, { $0.bodyText.contains(channel) }) == nil {
                return .noWebhooks(listener: webhooks.address, waited: wait)
            }
        }
        return nil
    }

    func makeContext(
        prefix: String, client: HTTPClient, features: FeatureProbe, traffic: TrafficCounter = TrafficCounter()
    )
        -> CaseContext
    {
        CaseContext(
            target: target, prefix: prefix, webhooks: webhooks, features: features, traffic: traffic,
            httpClient: client)
    }

    /// Runs the planned cases; `progress` sees each result as it comes.
    public func run(progress: @escaping @Sendable (CaseRecord) -> Void = { _ in }) async -> ConformanceReport {
        let started = Date()
        let clock = ContinuousClock.now
        let client = (try? makeHTTPClient()) ?? HTTPClient(eventLoopGroupProvider: .singleton)
        let features = FeatureProbe(preset: webhooks == nil ? [:] : [.webhooks: nil])
        let plan = self.plan()
        var records = [CaseRecord?](repeating: nil, count: plan.count)
        // The cases that wait on the server's clocks start first: the run takes about the longest of them.
        let order =
            plan.indices.filter { plan[$0].skip == nil && plan[$0].0.serverWait != nil }
            + plan.indices.filter { !(plan[$0].skip == nil && plan[$0].0.serverWait != nil) }
        await withTaskGroup(of: (Int, CaseRecord).self) { group in
            var next = 0
            func launch() {
                guard next < plan.count else { return }
                let index = order[next]
                next += 1
                let (c, skip) = plan[index]
                // Each case counts its own messages: the record says what it cost, the report adds them up.
                let context = makeContext(prefix: "\(runPrefix)\(index)-", client: client, features: features)
                group.addTask {
                    var record = await runCase(c, skip: skip, context: context)
                    record.messages = context.traffic.total
                    return (index, record)
                }
            }
            for _ in 0..<parallel { launch() }
            for await (index, record) in group {
                records[index] = record
                progress(record)
                launch()
            }
        }
        try? await client.shutdown()
        let formatter = ISO8601DateFormatter()
        return ConformanceReport(
            suite: ConformanceSuite.version, server: target.nodes.map(\.name), started: formatter.string(from: started),
            seconds: ProbeSocket.seconds(ContinuousClock.now - clock),
            messages: records.reduce(0) { $0 + ($1?.messages ?? 0) }, cases: records.compactMap { $0 })
    }

    func runCase(_ c: ConformanceCase, skip: String?, context: CaseContext) async -> CaseRecord {
        func record(
            _ verdict: CaseVerdict, _ message: String, seconds: Double = 0, evidence: [String]? = nil,
            failure: CaseFailure? = nil
        ) -> CaseRecord {
            CaseRecord(
                id: c.id, group: c.group, level: c.level, result: verdict, message: message, title: c.title,
                source: c.source, seconds: (seconds * 1000).rounded() / 1000, evidence: evidence,
                expected: failure?.expected, got: failure?.got)
        }
        if let skip { return record(.skipped, skip) }
        let start = ContinuousClock.now
        if let feature = c.feature, let why = await context.supports(feature) {
            await context.finish()
            return record(
                .unsupported, "\(feature.rawValue): \(why)", seconds: ProbeSocket.seconds(ContinuousClock.now - start))
        }
        let timeout =
            c.serverWait.map { max(caseTimeout, $0.seconds(activityTimeout: timings.activityTimeout) + 30) }
            ?? caseTimeout
        let outcome: Result<CaseOutcome, any Error> = await withTaskGroup(of: Result<CaseOutcome, any Error>?.self) {
            group in
            group.addTask {
                do { return .success(try await c.body(context)) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
                return Task.isCancelled
                    ? nil
                    : .failure(
                        CaseFailure(
                            expected: "the case to finish within \(Int(timeout)) s", got: "still waiting",
                            evidence: context.evidence()))
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failure(CaseFailure(expected: "an outcome", got: "none"))
        }
        let seconds = ProbeSocket.seconds(ContinuousClock.now - start)
        await context.finish()
        switch outcome {
        case .success(.pass(let message)): return record(.pass, message, seconds: seconds)
        case .success(.unsupported(let message)): return record(.unsupported, message, seconds: seconds)
        case .success(.skipped(let message)): return record(.skipped, message, seconds: seconds)
        case .failure(let failure as CaseFailure):
            return record(
                .fail, failure.description, seconds: seconds,
                evidence: failure.evidence.isEmpty ? context.evidence() : failure.evidence, failure: failure)
        case .failure(let error):
            return record(.fail, "the case stopped: \(error)", seconds: seconds, evidence: context.evidence())
        }
    }
}
