import ServiceLifecycle

extension ServiceGroup {
    /// Runs the group in a task of its own, for a server whose start waits on a stream of startup events: `ended`
    /// learns why the group ended (its error, or `stoppedAtOnce` when it returned without one), which while
    /// starting is why the start failed. `ended` is called once, last: it may finish the startup stream.
    package nonisolated func runTask(
        stoppedAtOnce: String, ended: @escaping @Sendable (String) -> Void
    ) -> Task<Void, Never> {
        Task {
            do {
                try await run()
                ended(stoppedAtOnce)
            } catch {
                ended("\(error)")
            }
        }
    }
}
