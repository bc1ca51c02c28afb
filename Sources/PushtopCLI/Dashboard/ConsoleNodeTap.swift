import PusherProtocol
import PushtopDashboard

/// Passes everything on to a sink and tells ``ProxyFaultControl`` which feed names which node (each feed's
/// `hello`), so that `K` on a row asks the proxy that showed it.
final class ConsoleNodeTap<Sink: ConsoleSink>: ConsoleSink {
    private let sink: Sink
    private let control: ProxyFaultControl

    init(_ sink: Sink, control: ProxyFaultControl) {
        self.sink = sink
        self.control = control
    }

    func update(_ source: ConsoleSourceStatus) { sink.update(source) }

    func post(snapshot: ConsoleSnapshot, cluster: Bool) {
        control.learn(snapshot)
        sink.post(snapshot: snapshot, cluster: cluster)
    }

    func post(_ rows: [ConsoleRow]) { sink.post(rows) }
    func listening(_ source: String, address: String) { sink.listening(source, address: address) }
}
