extension DashboardRunner {
    /// Performs a request to one node; a failure comes back as a ``NodeAnswer``.
    func performNodeRequest(_ request: NodeRequest) {
        let inbox = self.inbox
        switch request {
        case .publishCanary(let app, let channel, let event, let data, let seq):
            guard apis.indices.contains(app), let publisher = apis[app] as? any CanaryPublisher else {
                inbox.update { $0.uiEvents.append(.nodes(.canaryFailed(app: app, seq: seq, message: "no HTTP API"))) }
                return
            }
            Task.detached {
                do {
                    try await publisher.publish(channel: channel, event: event, data: data)
                } catch {
                    inbox.update { $0.uiEvents.append(.nodes(.canaryFailed(app: app, seq: seq, message: "\(error)"))) }
                }
            }
        case .presenceUsers(let app, let channel):
            guard apis.indices.contains(app), let api = apis[app] else {
                inbox.update {
                    $0.uiEvents.append(
                        .nodes(.presenceUsers(app: app, channel: channel, userIDs: nil, error: "no HTTP API")))
                }
                return
            }
            Task.detached {
                let answer: NodeAnswer
                do {
                    answer = .presenceUsers(
                        app: app, channel: channel, userIDs: try await api.presenceUserIDs(channel: channel), error: nil
                    )
                } catch {
                    answer = .presenceUsers(app: app, channel: channel, userIDs: nil, error: "\(error)")
                }
                inbox.update { $0.uiEvents.append(.nodes(answer)) }
            }
        }
    }
}
