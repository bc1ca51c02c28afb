import Foundation
import Logging
import PushtopConformance
import PushtopProxy

/// `pushtop conform --client`: a proxy that judges the client connecting through it. It relays the client to its
/// real server, runs the client cases one at a time on the connections that arrive, and reports as the server
/// suite does.
///
/// ```swift
/// let judge = try await ClientJudge.start(ClientJudgeSettings(proxy: ProxyConfiguration(port: 6002, upstream: "ws://127.0.0.1:6001")))
/// // point the app's client at ws://127.0.0.1:\(judge.port)
/// let report = await judge.run { record in print(record.id, record.result) }
/// await judge.shutdown()
/// ```
package final class ClientJudge: Sendable {
    package let settings: ClientJudgeSettings
    /// The port the client connects to.
    package let port: Int
    private let proxy: ProxyServer
    private let wire: ClientWire
    private let feeder: Task<Void, Never>

    private init(
        settings: ClientJudgeSettings, port: Int, proxy: ProxyServer, wire: ClientWire, feeder: Task<Void, Never>
    ) {
        self.settings = settings
        self.port = port
        self.proxy = proxy
        self.wire = wire
        self.feeder = feeder
    }

    /// Starts the proxy; returns once it listens.
    package static func start(_ settings: ClientJudgeSettings, logger: Logger = Logger(label: "pushtop.conform.client"))
        async throws(ProxyError) -> ClientJudge
    {
        var configuration = settings.proxy
        configuration.announcedActivityTimeout = settings.activityTimeout
        let wire = ClientWire()
        let (records, tap) = AsyncStream.makeStream(of: WireRecord.self)
        let feeder = Task {
            for await record in records { await wire.apply(record) }
        }
        do {
            let proxy = try await ProxyServer.start(configuration, logger: logger, tap: { tap.yield($0) })
            return ClientJudge(settings: settings, port: proxy.port, proxy: proxy, wire: wire, feeder: feeder)
        } catch {
            tap.finish()
            feeder.cancel()
            throw error
        }
    }

    /// Waits for the client, runs the selected cases in order, and reports; `progress` hears each verdict as it
    /// lands.
    package func run(progress: @Sendable (CaseRecord) -> Void = { _ in }) async -> ConformanceReport {
        let origin = ContinuousClock.now
        let started = ISO8601DateFormatter().string(from: Date())
        let context = ClientCaseContext(wire: wire, proxy: proxy, settings: settings, origin: origin)
        let connected = await wire.wait(until: context.deadline) { $0.current != nil }
        var records: [CaseRecord] = []
        for clientCase in ClientCatalogue.selected(settings.only) {
            let record: CaseRecord
            if !connected {
                record = Self.record(
                    clientCase, .notObserved("no client connected within \(Seconds.format(settings.timeLimit)) s"),
                    seconds: 0)
            } else if ContinuousClock.now >= context.deadline {
                record = Self.record(
                    clientCase, .notObserved("the time limit (\(Seconds.format(settings.timeLimit)) s) ran out first"),
                    seconds: 0)
            } else {
                record = await Self.judge(clientCase, context)
            }
            progress(record)
            proxy.postVerdict(case: record.id, verdict: record.result.rawValue, message: record.message)
            records.append(record)
        }
        let log = await wire.log
        var report = ConformanceReport(
            suite: ClientCatalogue.version, server: [settings.proxy.upstream], started: started,
            seconds: Seconds.value(ContinuousClock.now - origin),
            messages: log.connections.reduce(0) { $0 + $1.messages.count }, cases: records)
        report.kind = .client
        var targets: [String] = []
        for connection in log.connections where !targets.contains(connection.target) {
            targets.append(connection.target)
        }
        report.clients = targets
        return report
    }

    private static func judge(_ clientCase: ClientCase, _ context: ClientCaseContext) async -> CaseRecord {
        let start = ContinuousClock.now
        do {
            let outcome = try await clientCase.body(context)
            return record(clientCase, outcome, seconds: Seconds.value(.now - start))
        } catch {
            var record = record(clientCase, .notObserved(""), seconds: Seconds.value(.now - start))
            record.result = .fail
            record.message = error.description
            record.expected = error.expected
            record.got = error.got
            record.evidence = error.evidence
            return record
        }
    }

    private static func record(_ clientCase: ClientCase, _ outcome: ClientOutcome, seconds: Double) -> CaseRecord {
        let (verdict, message, evidence): (CaseVerdict, String, [String]?) =
            switch outcome {
            case .pass(let message, let evidence): (.pass, message, evidence.isEmpty ? nil : evidence)
            case .notObserved(let why): (.notObserved, why, nil)
            }
        return CaseRecord(
            id: clientCase.id, group: clientCase.group, level: clientCase.level, result: verdict, message: message,
            title: clientCase.title, source: clientCase.source, seconds: seconds, evidence: evidence)
    }

    /// Stops the proxy.
    package func shutdown() async {
        await proxy.shutdown()
        feeder.cancel()
    }
}
