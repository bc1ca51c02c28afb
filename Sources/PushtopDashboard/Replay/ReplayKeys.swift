/// The replay controls (scope: replaying a recording).
public enum ReplayKeys {
    public static let bindings: [KeyBinding] = [
        KeyBinding(
            [.char(" ")], hint: "play/pause", help: "play / pause", action: .replay(.togglePlay),
            scope: .replay),
        KeyBinding(
            [.char(".")], hint: "step", help: "step to the next recorded item (pauses)",
            action: .replay(.step), scope: .replay),
        KeyBinding(
            [.char("+")], hint: "faster", help: "faster (up to ×16)", action: .replay(.faster),
            scope: .replay),
        KeyBinding(
            [.char("-")], hint: "slower", help: "slower (down to ×0.5)", action: .replay(.slower),
            scope: .replay),
        KeyBinding(
            [.char("J")], hint: "jump", help: "jump to a time (m:ss, seconds, +/-seconds)",
            action: .replayJumpPrompt, scope: .replay),
    ]
}
