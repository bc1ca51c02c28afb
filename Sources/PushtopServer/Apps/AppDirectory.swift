import Synchronization

/// The apps a server serves, by key (the socket layer: `/app/{key}`) and by id (the HTTP API: `/apps/{id}/…`).
///
/// A reload replaces the whole set at once (``replace(with:)``), so a lookup sees either the old apps or the new
/// ones, never a mixture.
final class AppDirectory: Sendable {
    private struct Apps {
        var ordered: [AppNode]
        var byKey: [String: AppNode]
        var byID: [String: AppNode]

        init(_ nodes: [AppNode]) {
            ordered = nodes
            byKey = Dictionary(nodes.map { ($0.credentials.key, $0) }, uniquingKeysWith: { first, _ in first })
            byID = Dictionary(nodes.map { ($0.credentials.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    private let apps: Mutex<Apps>
    /// Strangers refused before any app's code ran (unknown keys and ids, bad signatures), counted for the server.
    let refusals = ServerRefusals()

    /// The apps `nodes`, in order (the first is the server's main app). At least one.
    init(_ nodes: [AppNode]) {
        precondition(!nodes.isEmpty, "a server serves at least one app")
        apps = Mutex(Apps(nodes))
    }

    /// Every app, in the order of the configuration.
    var nodes: [AppNode] { apps.withLock { $0.ordered } }

    /// The app whose key is `key`.
    func node(forKey key: String) -> AppNode? { apps.withLock { $0.byKey[key] } }

    /// The app whose id is `id`.
    func node(forID id: String) -> AppNode? { apps.withLock { $0.byID[id] } }

    /// Where a WebSocket for `/app/{key}` goes: the app's inbox; `nil` for a key no app has (a stranger, refused
    /// with 4001 by ``UnknownKeyRefusal`` without reaching any app).
    func inbox(forKey key: String) -> HubInbox? {
        apps.withLock { $0.byKey[key]?.hub.inbox }
    }

    /// Replaces every app at once (a reload). At least one.
    func replace(with nodes: [AppNode]) {
        precondition(!nodes.isEmpty, "a server serves at least one app")
        apps.withLock { $0 = Apps(nodes) }
    }
}
