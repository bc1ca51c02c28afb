/// The auth inspector's keys; `a` on the channel list opens it.
public enum AuthInspectorKeys {
    public static let bindings: [KeyBinding] =
        [
            KeyBinding(
                [.char("a")], hint: "auth", help: "auth inspector: the selected channel's authorization",
                action: .authInspector, scope: .pane(.channels))
        ]
        + KeyBinding.moves(
            in: .authInspector, Action.auth,
            help: (
                "scroll up", "scroll down", "go to the top",
                "go to the end"
            )) + [
            KeyBinding(
                [.left, .backTab], hint: "", help: "previous channel", action: .auth(.previous),
                scope: .view(.authInspector)),
            KeyBinding(
                [.right, .tab], hint: "channel", help: "next channel", action: .auth(.next),
                scope: .view(.authInspector)),
            KeyBinding(
                [.escape, .char("a")], hint: "back", help: "back to the panes",
                action: .auth(.close), scope: .view(.authInspector)),
        ]
}
