import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal's side of the loop's inbox: SIGINT, SIGTERM, SIGHUP and SIGWINCH through dispatch sources, and stdin
/// watched by a thread of its own.
///
/// The watcher only polls and tells the loop that input is ready; the loop reads the keys itself (curses decodes
/// them), then calls ``resume()`` so that the watcher polls again, and the same bytes never wake the loop twice.
@MainActor
final class TerminalInput {
    private let inbox: Inbox
    private var sources: [any DispatchSourceProtocol] = []
    private let acknowledged = DispatchSemaphore(value: 0)
    private let stopped = StopFlag()

    init(inbox: Inbox) {
        self.inbox = inbox
    }

    /// Catches the signals (before curses starts, so that it does not take SIGWINCH).
    func installSignalSources() {
        for sig in [SIGINT, SIGTERM, SIGWINCH, SIGHUP] {
            sources.append(TerminalInput.makeSignalSource(sig, inbox: inbox))
        }
    }

    /// Starts watching stdin.
    func watchStdin() {
        TerminalInput.watchStdin(inbox: inbox, acknowledged: acknowledged, stop: stopped)
    }

    /// The loop has read the keys: poll again.
    func resume() {
        acknowledged.signal()
    }

    /// Stops the signal sources and the stdin watcher.
    func stop() {
        for source in sources { source.cancel() }
        sources = []
        stopped.value.store(true, ordering: .relaxed)
    }

    /// Made outside the main actor: the handler runs on a dispatch queue, and a closure formed in a
    /// main-actor method would be main-actor isolated (and trap when dispatch runs it elsewhere).
    nonisolated private static func makeSignalSource(_ sig: Int32, inbox: Inbox) -> any DispatchSourceSignal {
        signal(sig, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
        source.setEventHandler {
            if sig == SIGWINCH {
                inbox.update { $0.resized = true }
            } else {
                inbox.update { $0.signal = sig }
            }
        }
        source.resume()
        return source
    }

    nonisolated private static func watchStdin(inbox: Inbox, acknowledged: DispatchSemaphore, stop: StopFlag) {
        DispatchQueue(label: "pushtop.stdin").async {
            var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            while !stop.value.load(ordering: .relaxed) {
                fds.revents = 0
                let n = poll(&fds, 1, 200)
                if n > 0 {
                    if fds.revents & Int16(POLLIN) == 0 {
                        // HUP or error on stdin: the terminal is gone.
                        inbox.update { $0.signal = SIGHUP }
                        return
                    }
                    inbox.update { $0.inputReady = true }
                    while !stop.value.load(ordering: .relaxed),
                        acknowledged.wait(timeout: .now() + .milliseconds(200)) == .timedOut
                    {}
                }
            }
        }
    }
}

/// Set once by ``TerminalInput/stop()``; the stdin watcher's thread reads it between polls.
private final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}
