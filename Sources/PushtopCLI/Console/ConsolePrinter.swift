import Foundation
import PusherProtocol
import PushtopDashboard
import Synchronization

/// `pushtop console`'s output: one JSON line per row on stdout (``ConsoleRow/jsonLine``), the rows `--type`
/// admits; each source's state changes as readable lines on stderr; with `--record`, every printed row in the
/// recording too. Sources call it concurrently: a lock keeps each batch's lines together.
final class ConsolePrinter: ConsoleSink {
    private struct State {
        var recorder: RecordingWriter?
        var printed = 0
        var recordFailure: String?
    }

    let filter: ConsoleTypeFilter
    private let state: Mutex<State>
    private let writeOut: @Sendable (String) -> Void
    private let writeErr: @Sendable (String) -> Void

    init(
        filter: ConsoleTypeFilter, recorder: RecordingWriter?,
        writeOut: @escaping @Sendable (String) -> Void = { StandardStreams.writeOut($0) },
        writeErr: @escaping @Sendable (String) -> Void = { StandardStreams.writeErr($0) }
    ) {
        self.filter = filter
        self.state = Mutex(State(recorder: recorder))
        self.writeOut = writeOut
        self.writeErr = writeErr
    }

    /// Rows printed so far.
    var printed: Int { state.withLock { $0.printed } }

    func post(_ rows: [ConsoleRow]) {
        let shown = rows.filter { filter.admits($0.type) }
        guard !shown.isEmpty else { return }
        var text = ""
        for row in shown {
            text += row.jsonLine
            text += "\n"
        }
        let now = Date().timeIntervalSince1970
        let failure = state.withLock { s -> String? in
            writeOut(text)
            s.printed += shown.count
            guard let recorder = s.recorder else { return nil }
            do throws(RecordingWriter.Failure) {
                try recorder.write(shown.map { .console(time: now, row: $0) })
            } catch {
                // Said once; the rows still print.
                s.recorder = nil
                recorder.close()
                return error.description
            }
            return nil
        }
        if let failure { writeErr("pushtop console: \(failure); recording stopped\n") }
    }

    func update(_ source: ConsoleSourceStatus) {
        writeErr("pushtop console: \(Self.describe(source))\n")
    }

    func post(snapshot: ConsoleSnapshot, cluster: Bool) {
        var parts: [String] = []
        if let node = snapshot.node { parts.append("node \(node)") }
        if let connections = snapshot.connections {
            parts.append("\(connections) connection\(connections == 1 ? "" : "s")")
        }
        if let channels = snapshot.occupiedChannels {
            parts.append("\(channels.count) occupied channel\(channels.count == 1 ? "" : "s")")
        }
        if cluster { parts.append("cluster-wide (--redis)") }
        writeErr("pushtop console: \(snapshot.source): hello: \(parts.joined(separator: ", "))\n")
    }

    func listening(_ source: String, address: String) {
        writeErr("pushtop console: receiving webhooks on http://\(address)/ (point the server's webhook URL here)\n")
    }

    /// Flushes and closes the recording.
    func finish() {
        state.withLock { s in
            s.recorder?.close()
            s.recorder = nil
        }
    }

    /// `NAME: state`, e.g. `127.0.0.1:6001: live`, `127.0.0.1:6001: failed: the secret does not sign …`.
    static func describe(_ source: ConsoleSourceStatus) -> String {
        switch source.state {
        case .connecting: return "\(source.name): connecting"
        case .live: return "\(source.name): live"
        case .failed(let why): return "\(source.name): failed: \(why)"
        case .unavailable(let why): return "\(source.name): unavailable: \(why)"
        }
    }
}
