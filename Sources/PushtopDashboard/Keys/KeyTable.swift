/// What a key does.
public enum Action: Sendable, Hashable {
    case nextPane, previousPane
    case focus(Pane)
    case up, down, pageUp, pageDown, top, bottom
    case open
    case subscribe, unsubscribe, trigger
    case toggleConnection
    case toggleSignIn
    case filter
    case pause
    case nextTheme
    case saveLog
    case redraw
    case help
    case close
    case quit
}

/// One row of the key table: keys, a short label for the hint bar, a longer text for `?`, and where it
/// applies.
public struct KeyBinding: Sendable, Hashable {
    public enum Scope: Sendable, Hashable {
        case global
        case pane(Pane)
    }

    public var keys: [Key]
    /// Short text for the hint bar (empty: not shown there).
    public var hint: String
    /// Text for the help overlay.
    public var help: String
    public var action: Action
    public var scope: Scope

    public init(_ keys: [Key], hint: String, help: String, action: Action, scope: Scope = .global) {
        self.keys = keys
        self.hint = hint
        self.help = help
        self.action = action
        self.scope = scope
    }

    /// The keys as written in hints and help (`j/↓`).
    public var keyLabel: String { keys.map(\.description).joined(separator: "/") }
}

/// The one key table: it drives dispatch, the hint bar and the `?` overlay, so they never disagree.
public struct KeyTable: Sendable {
    public var bindings: [KeyBinding]

    public init(bindings: [KeyBinding]) {
        self.bindings = bindings
    }

    /// The dashboard's keys.
    public static let standard = KeyTable(bindings: [
        KeyBinding([.tab], hint: "pane", help: "focus the next pane", action: .nextPane),
        KeyBinding([.backTab], hint: "", help: "focus the previous pane", action: .previousPane),
        KeyBinding([.char("1")], hint: "", help: "focus Connection", action: .focus(.connection)),
        KeyBinding([.char("2")], hint: "", help: "focus Channels", action: .focus(.channels)),
        KeyBinding([.char("3")], hint: "", help: "focus Members", action: .focus(.members)),
        KeyBinding([.char("4")], hint: "", help: "focus Event log", action: .focus(.log)),
        KeyBinding([.char("k"), .up], hint: "", help: "move up (the log stops following)", action: .up),
        KeyBinding([.char("j"), .down], hint: "", help: "move down", action: .down),
        KeyBinding([.pageUp], hint: "", help: "page up", action: .pageUp),
        KeyBinding([.pageDown], hint: "", help: "page down", action: .pageDown),
        KeyBinding([.home, .char("g")], hint: "", help: "go to the top", action: .top),
        KeyBinding([.end, .char("G")], hint: "follow", help: "go to the end (the log follows again)",
            action: .bottom, scope: .pane(.log)),
        KeyBinding([.end, .char("G")], hint: "", help: "go to the end", action: .bottom),
        KeyBinding([.enter], hint: "detail", help: "open the selected event: pretty JSON and frame",
            action: .open, scope: .pane(.log)),
        KeyBinding([.char("s")], hint: "sub", help: "subscribe to a channel", action: .subscribe),
        KeyBinding([.char("u")], hint: "unsub", help: "unsubscribe the selected channel", action: .unsubscribe),
        KeyBinding([.char("t")], hint: "trigger", help: "send a client event on the selected private/presence channel",
            action: .trigger),
        KeyBinding([.char("/")], hint: "filter", help: "filter the log (text, c:CHANNEL, e:EVENT)", action: .filter),
        KeyBinding([.char("p")], hint: "pause", help: "pause the log view (events are still collected)",
            action: .pause),
        KeyBinding([.char("c")], hint: "conn", help: "connect / disconnect", action: .toggleConnection),
        KeyBinding([.char("i")], hint: "sign in", help: "sign the user in / out (user events, watchlist)",
            action: .toggleSignIn),
        KeyBinding([.char("T")], hint: "theme", help: "next theme", action: .nextTheme),
        KeyBinding([.ctrl("s")], hint: "save", help: "save the log as JSON lines", action: .saveLog),
        KeyBinding([.ctrl("l")], hint: "", help: "redraw the screen", action: .redraw),
        KeyBinding([.escape], hint: "", help: "close / clear the filter", action: .close),
        KeyBinding([.char("?")], hint: "help", help: "show / hide this help", action: .help),
        KeyBinding([.char("q"), .ctrl("c")], hint: "quit", help: "quit", action: .quit),
    ])

    /// The action of a key with `focus` on a pane (pane-scoped bindings first).
    public func action(for key: Key, focus: Pane) -> Action? {
        var global: Action?
        for binding in bindings where binding.keys.contains(key) {
            switch binding.scope {
            case .pane(let p) where p == focus: return binding.action
            case .pane: continue
            case .global: if global == nil { global = binding.action }
            }
        }
        return global
    }

    /// The bindings the hint bar shows for a focused pane, in table order.
    public func hints(focus: Pane) -> [KeyBinding] {
        bindings.filter { binding in
            guard !binding.hint.isEmpty else { return false }
            if case .pane(let p) = binding.scope { return p == focus }
            return true
        }
    }
}
