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
    /// `w`: open / leave the wire inspector.
    case wireInspector
    /// A key inside the wire inspector.
    case wire(WireAction)
    /// `a` on the channel list: open the auth inspector on the selected channel.
    case authInspector
    /// A key inside the auth inspector.
    case auth(AuthAction)
    /// `b`: open / leave the channel browser.
    case channelBrowser
    /// A key inside the channel browser.
    case browser(BrowserAction)
    /// `r`: start / stop recording.
    case toggleRecording
    /// A replay control.
    case replay(ReplayCommand)
    /// `J` in a replay: ask for a time to jump to.
    case replayJumpPrompt
    /// `A`: select the next open app (with several profiles open); keys then act on it.
    case nextApp
    /// `C`: open / leave the debug console.
    case console
    /// A key inside the debug console.
    case consoleAction(ConsoleAction)
}

/// One row of the key table: keys, a short label for the hint bar, a longer text for `?`, and where it
/// applies.
public struct KeyBinding: Sendable, Hashable {
    public enum Scope: Sendable, Hashable {
        case global
        case pane(Pane)
        /// While a debugger view fills the body (it wins over every other binding).
        case view(ScreenView)
        /// While replaying a recording.
        case replay
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
    public static let standard = KeyTable(
        bindings: [
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
            KeyBinding(
                [.end, .char("G")], hint: "follow", help: "go to the end (the log follows again)",
                action: .bottom, scope: .pane(.log)),
            KeyBinding([.end, .char("G")], hint: "", help: "go to the end", action: .bottom),
            KeyBinding(
                [.enter], hint: "detail", help: "open the selected event: pretty JSON and frame",
                action: .open, scope: .pane(.log)),
            KeyBinding([.char("s")], hint: "sub", help: "subscribe to a channel", action: .subscribe),
            KeyBinding([.char("u")], hint: "unsub", help: "unsubscribe the selected channel", action: .unsubscribe),
            KeyBinding(
                [.char("t")], hint: "trigger", help: "send a client event on the selected private/presence channel",
                action: .trigger),
            KeyBinding(
                [.char("/")], hint: "filter", help: "filter the log (text, c:CHANNEL, e:EVENT, a:APP)", action: .filter),
            KeyBinding(
                [.char("p")], hint: "pause", help: "pause the log view (events are still collected)",
                action: .pause),
            KeyBinding([.char("c")], hint: "conn", help: "connect / disconnect", action: .toggleConnection),
            KeyBinding(
                [.char("i")], hint: "sign in", help: "sign the user in / out (user events, watchlist)",
                action: .toggleSignIn),
            KeyBinding(
                [.char("A")], hint: "app", help: "select the next app: keys act on it (several --profile)",
                action: .nextApp),
            KeyBinding([.char("T")], hint: "theme", help: "next theme", action: .nextTheme),
            KeyBinding([.ctrl("s")], hint: "save", help: "save the log as JSON lines", action: .saveLog),
            KeyBinding([.ctrl("l")], hint: "", help: "redraw the screen", action: .redraw),
            KeyBinding([.escape], hint: "", help: "close / clear the filter", action: .close),
        ] + WireInspectorKeys.bindings + AuthInspectorKeys.bindings + ChannelBrowserKeys.bindings
            + RecordingKeys.bindings
            + ReplayKeys.bindings + ConsoleKeys.bindings + [
                KeyBinding([.char("?")], hint: "help", help: "show / hide this help", action: .help),
                KeyBinding([.char("q"), .ctrl("c")], hint: "quit", help: "quit", action: .quit),
            ])

    /// The action of a key with `focus` on a pane: bindings of the open view first, then replay controls,
    /// then the focused pane's, then global ones. In a debugger view only its own keys, the replay controls
    /// and the global keys that make sense everywhere (help, quit, record, theme, redraw) apply.
    public func action(for key: Key, focus: Pane, view: ScreenView = .panes, replaying: Bool = false) -> Action? {
        var global: Action?
        var pane: Action?
        var replay: Action?
        for binding in bindings where binding.keys.contains(key) {
            switch binding.scope {
            case .view(let v) where v == view: return binding.action
            case .view: continue
            case .replay where replaying: if replay == nil { replay = binding.action }
            case .replay: continue
            case .pane(let p) where p == focus && view == .panes: if pane == nil { pane = binding.action }
            case .pane: continue
            case .global:
                if global == nil, view == .panes || KeyTable.everywhere(binding.action) { global = binding.action }
            }
        }
        return replay ?? pane ?? global
    }

    static func everywhere(_ action: Action) -> Bool {
        switch action {
        case .help, .quit, .toggleRecording, .nextTheme, .redraw, .wireInspector, .channelBrowser, .toggleConnection,
            .nextApp, .console:
            return true
        default: return false
        }
    }

    /// The bindings the hint bar shows for a focused pane (or an open view), in table order.
    /// - Parameter severalApps: whether several apps are open (only then is the app key worth a hint).
    public func hints(
        focus: Pane, view: ScreenView = .panes, replaying: Bool = false,
        severalApps: Bool = false
    ) -> [KeyBinding] {
        bindings.filter { binding in
            guard !binding.hint.isEmpty else { return false }
            if binding.action == .nextApp, !severalApps { return false }
            switch binding.scope {
            case .pane(let p): return view == .panes && p == focus
            case .view(let v): return v == view
            case .replay: return replaying
            case .global: return view == .panes || binding.action == .help || binding.action == .quit
            }
        }
    }
}
