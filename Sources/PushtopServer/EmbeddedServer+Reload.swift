import ServiceLifecycle

extension EmbeddedServer {
    /// Serves `apps` from now on (a reload of the apps file), without dropping the connections of the apps that
    /// stay.
    ///
    /// An app whose settings are unchanged is untouched; one whose limits or enabled state changed takes them in
    /// place (disabling it closes its connections with 4003); one whose credentials or webhooks changed starts
    /// afresh (its connections are closed with 4003, as for a removed app); an app no longer listed has its
    /// connections closed with 4003 and its services stopped. The swap is atomic: a connection or an API request
    /// finds either the old apps or the new ones. In a cluster the swap waits until every new app's backplane has
    /// joined (or, after `joinLimit`, gave up waiting and serves alone), so a new app accepts sockets only then;
    /// until the swap its key is unknown (4001). Everything that depends on the apps reads the new set from then on:
    /// the sockets, the HTTP API, the console feeds, the demo auth endpoint, `/health` and `/metrics`.
    ///
    /// - Important: Reloads must not overlap (`pushtop serve` runs them one after the other).
    /// - Throws: ``EmbeddedServerError/badApps(reason:)`` (none, or two share a key or an id; nothing changed),
    ///   ``EmbeddedServerError/badRedisURL(reason:)``.
    @discardableResult
    public func reload(apps settings: [AppSettings]) async throws(EmbeddedServerError) -> AppsReload {
        try Self.validate(settings)
        var server = configuration
        server.apps = settings
        let current = apps.nodes
        let currentByID = Dictionary(current.map { ($0.credentials.id, $0) }, uniquingKeysWith: { first, _ in first })
        var summary = AppsReload()
        var next: [AppNode] = []
        var started: [AppNode] = []
        var updates: [(AppNode, AppSettings)] = []
        let (joins, joined) = AsyncStream.makeStream(of: Void.self)
        for app in settings {
            let id = app.credentials.id
            if let old = currentByID[id], old.settings == app {
                next.append(old)
                summary.unchanged.append(id)
            } else if let old = currentByID[id], app.canBeAppliedInPlace(to: old.settings) {
                next.append(old)
                updates.append((old, app))
                summary.changed.append(id)
            } else {
                let node = try AppNode(
                    app, server: server, ownsInbox: true, simulate: false, logger: logger,
                    joined: { joined.yield() }, simulating: {})
                if !app.enabled { await node.hub.apply(limits: app.limits, enabled: false) }
                next.append(node)
                started.append(node)
                summary.added.append(id)
            }
        }
        for (node, app) in updates { await node.update(app) }
        for node in started {
            await serviceGroup.addServiceUnlessShutdown(.init(service: node.group, successTerminationBehavior: .ignore))
        }
        await Self.waitForJoins(joins, count: started.filter { $0.hub.backplane.isClustered }.count)
        apps.replace(with: next)
        let kept = Set(next.map { ObjectIdentifier($0) })
        for node in current where !kept.contains(ObjectIdentifier(node)) {
            summary.removed.append(node.credentials.id)
            await node.hub.shutdown(code: 4003, reason: "App was removed from this server")
            await node.group.triggerGracefulShutdown()
        }
        logger.notice(
            "reloaded the apps",
            metadata: [
                "added": "\(summary.added)", "changed": "\(summary.changed)", "removed": "\(summary.removed)",
            ])
        return summary
    }

    /// How long a reload waits for a new app's backplane to join its cluster at most (it gives up on its own after
    /// a few seconds and serves alone; this bound only guards against a service that never started).
    static let joinLimit: Duration = .seconds(20)

    /// Waits until `count` backplanes joined (each yields once on `joins`), at most ``joinLimit``.
    private static func waitForJoins(_ joins: AsyncStream<Void>, count: Int) async {
        guard count > 0 else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var arrived = 0
                for await _ in joins {
                    arrived += 1
                    if arrived == count { return }
                }
            }
            group.addTask { try? await Task.sleep(for: joinLimit) }
            await group.next()
            group.cancelAll()
        }
    }
}
