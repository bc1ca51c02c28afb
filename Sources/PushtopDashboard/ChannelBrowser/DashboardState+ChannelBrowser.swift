extension DashboardState {
    /// `b` and the channel browser's own keys.
    mutating func performChannelBrowser(_ action: Action) -> [Effect] {
        switch action {
        case .channelBrowser:
            if view == .channelBrowser {
                view = .panes
                return []
            }
            view = .channelBrowser
            return apiRequestsDue()
        case .browser(let action):
            switch self.browser.perform(action, page: ChannelBrowserView.pageRows(self)) {
            case .none: break
            case .leave: view = .panes
            case .promptFilter: prompt = Prompt(purpose: .browserFilter, text: self.browser.filter)
            case .fetch:
                guard self.hasAPI else { return [] }
                self.browser.started(at: now)
                return [.fetchOccupiedChannels]
            case .subscribe(let name):
                return subscribeFromView(name)
            }
        default:
            break
        }
        return []
    }
}
