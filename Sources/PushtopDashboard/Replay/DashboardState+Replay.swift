extension DashboardState {
    /// A replay's keys (`pushtop replay`).
    mutating func performReplay(_ action: Action) -> [Effect] {
        switch action {
        case .replay(let command):
            return [.replay(command)]
        case .replayJumpPrompt:
            prompt = Prompt(purpose: .replayJump)
        default:
            break
        }
        return []
    }
}
