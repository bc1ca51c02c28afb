import ServiceLifecycle

extension EmbeddedServer {
    /// Serves `apps` from now on (a reload of the apps file), without dropping the connections of the apps that
    /// stay.
    ///
    /// An app whose settings are unchanged is untouched; one whose limits or enabled state changed takes them in
    /// place (disabling it closes its connections with 4003); one whose credentials or webhooks changed starts
    /// afresh (its connections are closed with 4003, as for a removed app); an app no longer listed has its
    /// connections closed with 4003 and its services stopped. The swap is atomic: a connection or an API request
    /// finds either the old apps or the new ones.
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
                    app, server: server, ownsInbox: true, simulate: false, logger: logger, joined: {}, simulating: {})
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
}
