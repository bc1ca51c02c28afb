extension DashboardState {
    /// `C` and the console's own keys.
    mutating func performConsole(_ action: Action) -> [Effect] {
        switch action {
        case .console:
            view = view == .console ? .panes : .console
        case .consoleAction(let action):
            switch console.perform(action, rows: ConsoleView.listRows(self)) {
            case .none:
                if let detail = console.detail {
                    // Scrolling the open row: within its lines (End goes to the last page).
                    let last = ConsoleDetailView.scrollMetrics(self, seq: detail.seq).last
                    console.detail = (detail.seq, action == .bottom ? last : min(detail.scroll, last))
                }
            case .promptFilter:
                prompt = Prompt(purpose: .consoleFilter, text: console.filter)
            case .leave:
                view = .panes
            case .status(let text):
                setStatus(text)
            case .browse(let channel):
                console.detail = nil
                view = .channelBrowser
                self.browser.setFilter(channel)
                return apiRequestsDue()
            case .subscribe(let name):
                return subscribeFromView(name)
            case .closeSocket(let socket):
                setStatus("closing \(socket) with 4200 (through pushtop proxy)")
                return [.closeSocket(socketID: socket, code: 4200)]
            }
        default:
            break
        }
        return []
    }
}
