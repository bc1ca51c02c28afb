import NIOCore
import Synchronization

/// The HTTP API's answers of one event-loop turn, flushed together once the turn's reads are handled.
///
/// A loop reads every connection that is ready, then runs its tasks. Flushing each answer as it is decided sends it
/// in the middle of the turn: the `writev` wakes the client, whose thread then competes for the core with the loop
/// still reading the others (on a busy machine most of the loop's context switches were such preemptions, issue 40).
/// Flushed from one task at the end of the turn, the turn's answers leave back to back, after the loop's reads: one
/// `writev` per connection as before, fewer preemptions, and no answer waits longer than the turn it was decided in.
///
/// - Important: Loop-bound: one per event loop (``Loops`` hands it out), used on that loop only.
final class TurnFlush {
    private let loop: any EventLoop
    /// Contexts whose answers wait for the end of this turn.
    private var waiting: [ChannelHandlerContext] = []
    /// The list being flushed (kept to reuse its storage).
    private var flushing: [ChannelHandlerContext] = []
    private var scheduled = false

    init(loop: any EventLoop) {
        self.loop = loop
        waiting.reserveCapacity(64)
        flushing.reserveCapacity(64)
    }

    /// Flushes `context` once this turn's reads are handled (at once, when called off its loop's turn: the task runs
    /// next). A context flushed twice in a turn costs a second, empty flush; a removed one flushes nothing.
    func flushAtTurnEnd(_ context: ChannelHandlerContext) {
        waiting.append(context)
        guard !scheduled else { return }
        scheduled = true
        // Tasks run after the turn's reads; from the loop itself, `execute` wakes nothing.
        loop.assumeIsolated().execute { [self] in
            scheduled = false
            swap(&waiting, &flushing)
            for context in flushing { context.flush() }
            flushing.removeAll(keepingCapacity: true)
        }
    }

    /// One ``TurnFlush`` per event loop of a listener, made when the loop's first connection asks.
    final class Loops: Sendable {
        private let byLoop = Mutex<[ObjectIdentifier: NIOLoopBound<TurnFlush>]>([:])

        init() {}

        /// The flush of `loop`, the caller's loop (checked).
        func on(_ loop: any EventLoop) -> TurnFlush {
            let bound = byLoop.withLock { table -> NIOLoopBound<TurnFlush> in
                if let found = table[ObjectIdentifier(loop)] { return found }
                let made = NIOLoopBound(TurnFlush(loop: loop), eventLoop: loop)
                table[ObjectIdentifier(loop)] = made
                return made
            }
            return bound.value
        }
    }
}
