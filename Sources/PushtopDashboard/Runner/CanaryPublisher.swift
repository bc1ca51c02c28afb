/// An app's HTTP API that can publish: the cross-node canary publishes through each node's (`--node`).
public protocol CanaryPublisher: Sendable {
    /// `POST /apps/ID/events` with one event on one channel.
    func publish(channel: String, event: String, data: String) async throws
}
