import PusherProtocol
import PushtopDashboard
import Synchronization

/// Passes everything on to a sink and tells when every feed has answered (live, or given up): the dashboard
/// waits for it a moment before connecting, so that the console shows the dashboard's own connections.
final class ConsoleReadiness<Sink: ConsoleSink>: ConsoleSink {
    private let sink: Sink
    private let expected: Int
    private let answered = Mutex<Set<String>>([])

    /// `sources`: how many feeds to wait for.
    init(_ sink: Sink, sources: Int) {
        self.sink = sink
        self.expected = sources
    }

    /// Whether every feed has answered.
    var isReady: Bool { answered.withLock { $0.count >= expected } }

    /// Returns once every feed has answered, or after `timeout`.
    func waitUntilLive(timeout: Duration) async {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        while !isReady, clock.now < end {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    func update(_ source: ConsoleSourceStatus) {
        if source.kind == .serverFeed, source.state != .connecting {
            answered.withLock { _ = $0.insert(source.name) }
        }
        sink.update(source)
    }

    func post(snapshot: ConsoleSnapshot, cluster: Bool) { sink.post(snapshot: snapshot, cluster: cluster) }
    func post(_ rows: [ConsoleRow]) { sink.post(rows) }
    func listening(_ source: String, address: String) { sink.listening(source, address: address) }
}
