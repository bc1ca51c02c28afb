import PushtopProxy

/// The judge's view of the wire, kept current from the proxy's tap: cases read the ``WireLog`` and wait for it to
/// show something.
package actor ClientWire {
    package private(set) var log = WireLog()
    /// A case waiting for the log to show something.
    private struct Waiter {
        let id: Int
        let condition: @Sendable (WireLog) -> Bool
        let resume: CheckedContinuation<Bool, Never>
    }

    private var waiters: [Waiter] = []
    private var nextWaiter = 0

    package init() {}

    package func apply(_ record: WireRecord) {
        log.apply(record)
        guard !waiters.isEmpty else { return }
        var still: [Waiter] = []
        for waiter in waiters {
            if waiter.condition(log) { waiter.resume.resume(returning: true) } else { still.append(waiter) }
        }
        waiters = still
    }

    /// Waits until `condition` holds of the log, at most until `deadline`; whether it came to hold.
    package func wait(until deadline: ContinuousClock.Instant, for condition: @escaping @Sendable (WireLog) -> Bool)
        async -> Bool
    {
        if condition(log) { return true }
        guard deadline > .now else { return false }
        let id = nextWaiter
        nextWaiter += 1
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            await self?.expire(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            waiters.append(Waiter(id: id, condition: condition, resume: continuation))
        }
    }

    private func expire(_ id: Int) {
        guard let position = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: position).resume.resume(returning: false)
    }
}
