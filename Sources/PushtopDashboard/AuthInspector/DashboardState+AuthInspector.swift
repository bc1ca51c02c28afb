extension DashboardState {
    /// `a` on a channel and the auth inspector's own keys.
    mutating func performAuthInspector(_ action: Action) -> [Effect] {
        switch action {
        case .authInspector:
            guard let channel = currentChannel else {
                setStatus("no channel selected", isError: true)
                return []
            }
            guard auth.traces[channel.name] != nil else {
                setStatus("\(channel.name): no authorization seen (\(channel.kind.rawValue) channels \(channel.kind.requiresAuthorization ? "authorize when subscribing" : "need none"))",
                    isError: channel.kind.requiresAuthorization)
                return []
            }
            auth.selected = channel.name
            auth.scroll = 0
            view = .authInspector
        case .auth(let action):
            let metrics = AuthInspectorView.scrollMetrics(self)
            if auth.perform(action, channels: appChannelNames, page: metrics.page) == .leave { view = .panes }
            auth.scroll = min(auth.scroll, metrics.last)
        default:
            break
        }
        return []
    }
}
