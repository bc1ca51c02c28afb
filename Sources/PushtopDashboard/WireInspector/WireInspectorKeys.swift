/// The wire inspector's keys (scope: the inspector is open); `w` opens it from anywhere.
public enum WireInspectorKeys {
    public static let bindings: [KeyBinding] =
        [
            KeyBinding(
                [.char("w")], hint: "wire", help: "wire inspector: every WebSocket frame, both directions",
                action: .wireInspector),
            KeyBinding(
                [.char("w")], hint: "", help: "back to the panes", action: .wireInspector,
                scope: .view(.wireInspector)),
        ]
        + KeyBinding.moves(
            in: .wireInspector, Action.wire,
            help: (
                "previous frame (stops following)", "next frame",
                "oldest frame", "follow the newest frame"
            ), bottomHint: "follow") + [
            KeyBinding(
                [.enter], hint: "frame", help: "open the frame: JSON, decrypted payload",
                action: .wire(.open), scope: .view(.wireInspector)),
            KeyBinding(
                [.char("p")], hint: "pings", help: "show / hide pings and pongs",
                action: .wire(.toggleKeepAlives), scope: .view(.wireInspector)),
            KeyBinding(
                [.char("/")], hint: "filter", help: "filter frames (text, c:CHANNEL, e:EVENT)",
                action: .wire(.filter), scope: .view(.wireInspector)),
            KeyBinding(
                [.escape], hint: "back", help: "close the frame / clear the filter / leave",
                action: .wire(.close), scope: .view(.wireInspector)),
        ]
}
