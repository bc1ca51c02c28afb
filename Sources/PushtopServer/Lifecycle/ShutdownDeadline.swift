import ServiceLifecycle

/// A service whose graceful shutdown may last at most `limit`: then it is cancelled.
///
/// The HTTP server waits for its connections to close; a peer that never answers must not hold the server up.
struct ShutdownDeadline: Service {
    let service: any Service
    let limit: Duration

    func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [service] in try await service.run() }
            group.addTask { [limit] in
                try await gracefulShutdown()
                try await Task.sleep(for: limit)
            }
            defer { group.cancelAll() }
            // The first to end: the service (its result is the group's), or the deadline, or a cancellation.
            _ = try await group.next()
        }
    }
}
