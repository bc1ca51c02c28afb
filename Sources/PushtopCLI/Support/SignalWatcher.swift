import Dispatch
import Foundation

/// Turns SIGINT and SIGTERM (and others on request) into an async stream (the default handlers are switched off).
enum SignalWatcher {
    static func terminationSignals() -> AsyncStream<Int32> {
        signals([SIGINT, SIGTERM])
    }

    /// The signals `list` as they arrive (`serve --apps-file` adds SIGHUP: reload).
    static func signals(_ list: [Int32]) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        var sources: [any DispatchSourceSignal] = []
        for sig in list {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { continuation.yield(sig) }
            source.resume()
            sources.append(source)
        }
        let keep = SourcesBox(sources)
        continuation.onTermination = { _ in keep.cancel() }
        return stream
    }

    private final class SourcesBox: @unchecked Sendable {
        // Written once at creation, then only cancelled.
        let sources: [any DispatchSourceSignal]
        init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
        func cancel() { sources.forEach { $0.cancel() } }
    }
}
