import PusherProtocol

import struct NIOCore.TimeAmount

extension PusherClient {
    // MARK: - Closing

    /// Closes the connection like ``disconnect()`` and waits until the close handshake finished (the server
    /// answered our close frame and the socket ended) or `timeout` passed.
    /// - Returns: `true` when the handshake finished in time (or there was no open socket).
    @discardableResult
    public func disconnect(waitingForClose timeout: Duration) async -> Bool {
        let attempt = machine.attempt
        disconnect()
        guard liveSockets.contains(attempt) else { return true }
        closeWaiterID += 1
        let id = closeWaiterID
        let loop = eventLoop
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        let timer = loop.scheduleTask(in: .nanoseconds(nanoseconds)) { [weak self] in
            guard let self else { return }
            self.assumeIsolated { $0.resumeCloseWaiters { $0.id == id } }
        }
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            closeWaiters.append((id, attempt, continuation))
        }
        timer.cancel()
        return finished
    }

    /// Disconnects (waiting up to `closeTimeout` for the close handshake) and ends every event and frame stream.
    public func shutdown(closeTimeout: Duration = .seconds(1)) async {
        await disconnect(waitingForClose: closeTimeout)
        for (_, timer) in timers { timer.task.cancel() }
        timers = [:]
        flush()
        broadcaster.finish()
        tap.finish()
    }

    func resumeCloseWaiters(finished: Bool = false, where match: ((id: Int, attempt: Int)) -> Bool) {
        var kept: [(id: Int, attempt: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        for waiter in closeWaiters {
            if match((waiter.id, waiter.attempt)) {
                waiter.continuation.resume(returning: finished)
            } else {
                kept.append(waiter)
            }
        }
        closeWaiters = kept
    }
}
