import ServiceLifecycle

/// The webhook senders as a service: they run as child tasks of this service's task (``WebhookDispatcher/run()``),
/// and when the server stops (after the hub and the backplane, whose last decisions are webhooks too), no more
/// events are taken and those queued get a moment to leave.
struct WebhookService: Service {
    let webhooks: WebhookDispatcher
    /// The longest the queued webhooks may hold the shutdown up (a receiver that is down does not hold it longer).
    let drainTimeout: Duration

    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { [webhooks] in await webhooks.run() }
            do {
                try await gracefulShutdown()
            } catch {
                webhooks.finish()
                group.cancelAll()
                return  // cancelled: no waiting
            }
            webhooks.finish()
            await withTaskGroup(of: Void.self) { drain in
                drain.addTask { [webhooks] in await webhooks.drained() }
                drain.addTask { [drainTimeout] in try? await Task.sleep(for: drainTimeout) }
                _ = await drain.next()
                drain.cancelAll()
            }
            group.cancelAll()
        }
    }
}
