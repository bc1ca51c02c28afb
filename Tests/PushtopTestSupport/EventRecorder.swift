import PusherChannels
import Synchronization

/// Collects a client's events (through a batch consumer, as the dashboard does) for assertions.
public final class EventRecorder: Sendable {
    private final class Store: Sendable {
        let events = Mutex<[ClientEvent]>([])
    }

    private let store = Store()
    private let task: Task<Void, Never>

    public init(_ client: PusherClient) {
        let batches = client.eventBatches()
        let store = self.store
        task = Task {
            for await batch in batches { store.events.withLock { $0.append(contentsOf: batch) } }
        }
    }

    deinit { task.cancel() }

    public var all: [ClientEvent] { store.events.withLock { $0 } }

    public var states: [ConnectionState] {
        all.compactMap { if case .state(let c) = $0 { return c.current } else { return nil } }
    }

    public var channelEvents: [ChannelEvent] {
        all.compactMap { if case .event(let e) = $0 { return e } else { return nil } }
    }

    public var errors: [(code: Int?, message: String)] {
        all.compactMap { if case .error(let code, let message) = $0 { return (code, message) } else { return nil } }
    }

    public func count(_ match: (ClientEvent) -> Bool) -> Int { all.filter(match).count }

    /// Waits until an event matching `match` has been recorded, and returns the first.
    @discardableResult
    public func wait(
        _ what: String = "event", timeout: Double = 10,
        for match: @escaping @Sendable (ClientEvent) -> Bool
    ) async throws -> ClientEvent {
        try await waitUntil(timeout: timeout, what) { self.all.contains(where: match) }
        return all.first(where: match)!
    }

    public func waitForState(_ state: ConnectionState, occurrence: Int = 1, timeout: Double = 10) async throws {
        try await waitUntil(timeout: timeout, "state \(state) #\(occurrence)") {
            self.states.filter { $0 == state }.count >= occurrence
        }
    }
}

extension ClientEvent {
    public var isSubscribed: Bool { if case .subscribed = self { return true } else { return false } }
    public func isSubscribed(_ channel: String) -> Bool {
        if case .subscribed(let c, _) = self { return c == channel } else { return false }
    }
}
