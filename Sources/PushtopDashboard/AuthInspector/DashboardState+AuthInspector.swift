extension DashboardState {
    /// `a` on a channel and the auth inspector's own keys.
    mutating func performAuthInspector(_ action: Action) -> [Effect] {
        switch action {
        case .authInspector:
            guard let channel = currentChannel else {
                setStatus("no channel selected", isError: true)
                return []
            }
            guard self.auth.traces[channel.name] != nil else {
                setStatus(
                    "\(channel.name): no authorization seen (\(channel.kind.rawValue) channels \(channel.kind.requiresAuthorization ? "authorize when subscribing" : "need none"))",
                    isError: channel.kind.requiresAuthorization)
                return []
            }
            self.auth.selected = channel.name
            self.auth.scroll = 0
            view = .authInspector
        case .auth(let action):
            let metrics = AuthInspectorView.scrollMetrics(self)
            if self.auth.perform(action, channels: appChannelNames, page: metrics.page) == .leave { view = .panes }
            self.auth.scroll = min(self.auth.scroll, metrics.last)
        default:
            break
        }
        return []
    }
}
