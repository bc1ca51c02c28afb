extension DashboardState {
    /// A click focuses a pane (and selects an app or a channel row); the wheel scrolls the pane under it.
    mutating func handle(_ action: MouseAction) -> [Effect] {
        guard overlay == .none, prompt == nil, view == .panes, let layout else { return [] }
        switch action {
        case .click(let row, let column):
            guard let pane = layout.pane(atRow: row, column: column) else { return [] }
            focus = pane
            let inner = row - layout.rect(of: pane).row - 1
            if pane == .connection, isMultiApp, apps.indices.contains(inner), inner != selectedApp {
                // The connection pane's app rows: a click selects the app.
                selectedApp = inner
                if let i = channels.firstIndex(where: { $0.app == inner }) { selectedChannel = i }
                memberTop = 0
            }
            if pane == .channels, inner >= 1 {
                let rows = ChannelsPaneView.rows(self)
                let top = ChannelsPaneView.top(self, rows: rows, listRows: layout.channels.height - 3)
                let index = top + inner - 1
                if rows.indices.contains(index) {
                    switch rows[index] {
                    case .channel(let i):
                        selectedChannel = i
                        followChannelSelection()
                    case .heading(let app):
                        selectedApp = app
                        if let i = channels.firstIndex(where: { $0.app == app }) { selectedChannel = i }
                    }
                }
            }
        case .wheelUp(let row, let column):
            if let pane = layout.pane(atRow: row, column: column) {
                focus = pane
                move(by: -3)
            }
        case .wheelDown(let row, let column):
            if let pane = layout.pane(atRow: row, column: column) {
                focus = pane
                move(by: 3)
            }
        }
        return []
    }
}
