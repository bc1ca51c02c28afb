import Foundation
import PusherChannels

/// Prints `watch`'s lines: each batch formatted into one buffer and written with one `write`.
///
/// Called synchronously by the client on its event loop (``PusherClient/onEventBatch(_:)``), so a read burst goes
/// from the socket through the client to stdout on one thread, with one wake-up and no task in between.
final class WatchWriter: @unchecked Sendable {
    // Touched only on the client's event loop (inside its callbacks).
    private let client: PusherClient
    private let exit: AsyncStream<Int32>.Continuation
    /// `--record FILE`: everything printed (and every frame) is also written there.
    private let recorder: RecordingWriter?
    private var lastClosure: ConnectionClosure?
    /// The lines of the batch being printed, as bytes (kept between batches, so its storage is reused).
    private var out: [UInt8] = []

    /// With several nodes (`--node`): `{"node":"HOST:PORT",` in place of each line's `{`.
    private let nodePrefix: [UInt8]?

    init(
        client: PusherClient, exit: AsyncStream<Int32>.Continuation, recorder: RecordingWriter? = nil,
        node: String? = nil
    ) {
        self.client = client
        self.exit = exit
        self.recorder = recorder
        nodePrefix = node.map { Array(("{\"node\":" + CanaryLine.quote($0) + ",").utf8) }
    }

    /// Puts the node's name first in the line that starts at `start`.
    private func nameNode(from start: Int) {
        guard let nodePrefix, start < out.count, out[start] == UInt8(ascii: "{") else { return }
        out.replaceSubrange(start..<start + 1, with: nodePrefix)
    }

    /// Starts printing events (and, with `frames`, `frame` lines) from now until the client shuts down.
    func start(frames: Bool) {
        client.onEventBatch { [self] batch in printEvents(batch) }
        if frames || recorder != nil {
            client.onFrames { [self] batch in
                record(batch.map(RecordingItem.frame))
                if frames { printFrames(batch) }
            }
        }
    }

    private func printEvents(_ batch: [ClientEvent]) {
        if recorder != nil {
            let now = Date().timeIntervalSince1970
            record(batch.map { .client(time: now, event: $0) })
        }
        for event in batch {
            let start = out.count
            if WatchLine.append(event, to: &out) {
                nameNode(from: start)
                out.append(UInt8(ascii: "\n"))
            }
            switch event {
            case .closed(let closure):
                lastClosure = closure
            case .state(let change) where change.current == .failed:
                flush()
                let reason = client.assumeIsolated { $0.failureReason } ?? lastClosure?.reason ?? "connection failed"
                let code = lastClosure?.code.map { "close code \($0) (\(CloseCode.meaning(of: $0))): " } ?? ""
                StandardStreams.writeErr("pushtop watch: connection failed: \(code)\(reason)\n")
                exit.yield(1)
            default:
                break
            }
        }
        flush()
    }

    private func printFrames(_ batch: [WireFrame]) {
        for frame in batch {
            let start = out.count
            out.append(contentsOf: WatchLine.frame(frame).utf8)
            nameNode(from: start)
            out.append(UInt8(ascii: "\n"))
        }
        flush()
    }

    /// Writes to the recording; a recording that fails (a full disk) is reported once and stopped.
    private func record(_ items: [RecordingItem]) {
        guard let recorder, !recordingFailed else { return }
        do {
            try recorder.write(items)
        } catch {
            recordingFailed = true
            out.append(contentsOf: (WatchLine.error(code: nil, message: error.description) + "\n").utf8)
        }
    }

    private var recordingFailed = false

    private func flush() {
        guard !out.isEmpty else { return }
        out.withUnsafeBytes { StandardStreams.writeOut($0) }
        out.removeAll(keepingCapacity: true)
    }
}
