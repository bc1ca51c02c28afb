extension DashboardState {
    /// `w` and the wire inspector's own keys.
    mutating func performWireInspector(_ action: Action) -> [Effect] {
        switch action {
        case .wireInspector:
            view = view == .wireInspector ? .panes : .wireInspector
        case .wire(let action):
            switch self.wire.perform(action, rows: wireRows) {
            case .none:
                if let detail = self.wire.detail {
                    // Scrolling the open frame: within its lines (End goes to the last page).
                    let last = WireFrameDetailView.scrollMetrics(self, seq: detail.seq).last
                    self.wire.detail = (detail.seq, action == .bottom ? last : min(detail.scroll, last))
                }
            case .promptFilter: prompt = Prompt(purpose: .wireFilter, text: self.wire.log.filter?.query ?? "")
            case .leave: view = .panes
            }
        default:
            break
        }
        return []
    }

    /// Rows of frames the wire inspector shows.
    var wireRows: Int { max(1, size.rows - 4) }
}
