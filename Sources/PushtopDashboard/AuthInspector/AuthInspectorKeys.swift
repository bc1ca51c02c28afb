/// The auth inspector's keys; `a` on the channel list opens it.
public enum AuthInspectorKeys {
    public static let bindings: [KeyBinding] = [
        KeyBinding([.char("a")], hint: "auth", help: "auth inspector: the selected channel's authorization",
            action: .authInspector, scope: .pane(.channels)),
        KeyBinding([.char("k"), .up], hint: "", help: "scroll up", action: .auth(.up),
            scope: .view(.authInspector)),
        KeyBinding([.char("j"), .down], hint: "", help: "scroll down", action: .auth(.down),
            scope: .view(.authInspector)),
        KeyBinding([.pageUp], hint: "", help: "page up", action: .auth(.pageUp), scope: .view(.authInspector)),
        KeyBinding([.pageDown], hint: "", help: "page down", action: .auth(.pageDown), scope: .view(.authInspector)),
        KeyBinding([.home, .char("g")], hint: "", help: "go to the top", action: .auth(.top), scope: .view(.authInspector)),
        KeyBinding([.end, .char("G")], hint: "", help: "go to the end", action: .auth(.bottom),
            scope: .view(.authInspector)),
        KeyBinding([.left, .backTab], hint: "", help: "previous channel", action: .auth(.previous),
            scope: .view(.authInspector)),
        KeyBinding([.right, .tab], hint: "channel", help: "next channel", action: .auth(.next),
            scope: .view(.authInspector)),
        KeyBinding([.escape, .char("a")], hint: "back", help: "back to the panes",
            action: .auth(.close), scope: .view(.authInspector)),
    ]
}
