import ServiceLifecycle

/// The webhook senders' last moments as a service: when the server stops (after the hub and the backplane, whose
/// last decisions are webhooks too), no more events are taken and those queued get a moment to leave.
struct WebhookService: Service {
    let webhooks: WebhookDispatcher
    /// The longest the queued webhooks may hold the shutdown up (a receiver that is down does not hold it longer).
    let drainTimeout: Duration

    func run() async {
        do {
            try await gracefulShutdown()
        } catch {
            webhooks.finish()
            return  // cancelled: no waiting
        }
        webhooks.finish()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [webhooks] in await webhooks.drained() }
            group.addTask { [drainTimeout] in try? await Task.sleep(for: drainTimeout) }
            _ = await group.next()
            group.cancelAll()
        }
    }
}
