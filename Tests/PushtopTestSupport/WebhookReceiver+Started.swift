extension WebhookReceiver {
    /// A receiver already listening on a free loopback port; the caller stops it.
    public static func started() async throws -> WebhookReceiver {
        let receiver = WebhookReceiver()
        try await receiver.start()
        return receiver
    }
}
