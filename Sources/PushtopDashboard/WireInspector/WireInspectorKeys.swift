/// The wire inspector's keys (scope: the inspector is open); `w` opens it from anywhere.
public enum WireInspectorKeys {
    public static let bindings: [KeyBinding] = [
        KeyBinding([.char("w")], hint: "wire", help: "wire inspector: every WebSocket frame, both directions",
            action: .wireInspector),
        KeyBinding([.char("w")], hint: "", help: "wire inspector: back to the panes", action: .wireInspector,
            scope: .view(.wireInspector)),
        KeyBinding([.char("k"), .up], hint: "", help: "wire inspector: previous frame (stops following)",
            action: .wire(.up), scope: .view(.wireInspector)),
        KeyBinding([.char("j"), .down], hint: "", help: "wire inspector: next frame", action: .wire(.down),
            scope: .view(.wireInspector)),
        KeyBinding([.pageUp], hint: "", help: "wire inspector: page up", action: .wire(.pageUp),
            scope: .view(.wireInspector)),
        KeyBinding([.pageDown], hint: "", help: "wire inspector: page down", action: .wire(.pageDown),
            scope: .view(.wireInspector)),
        KeyBinding([.home, .char("g")], hint: "", help: "wire inspector: oldest frame", action: .wire(.top),
            scope: .view(.wireInspector)),
        KeyBinding([.end, .char("G")], hint: "follow", help: "wire inspector: follow the newest frame",
            action: .wire(.bottom), scope: .view(.wireInspector)),
        KeyBinding([.enter], hint: "frame", help: "wire inspector: open the frame (JSON indented, decrypted payload)",
            action: .wire(.open), scope: .view(.wireInspector)),
        KeyBinding([.char("p")], hint: "pings", help: "wire inspector: show / hide pings and pongs",
            action: .wire(.toggleKeepAlives), scope: .view(.wireInspector)),
        KeyBinding([.char("/")], hint: "filter", help: "wire inspector: filter frames (text, c:CHANNEL, e:EVENT)",
            action: .wire(.filter), scope: .view(.wireInspector)),
        KeyBinding([.escape], hint: "back", help: "wire inspector: close the frame / clear the filter / leave",
            action: .wire(.close), scope: .view(.wireInspector)),
    ]
}
