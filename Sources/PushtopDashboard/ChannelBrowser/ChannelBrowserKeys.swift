/// The channel browser's keys; `b` opens it.
public enum ChannelBrowserKeys {
    public static let bindings: [KeyBinding] =
        [
            KeyBinding(
                [.char("b")], hint: "browse", help: "channel browser: the app's occupied channels (HTTP API)",
                action: .channelBrowser)
        ]
        + KeyBinding.moves(
            in: .channelBrowser, Action.browser,
            help: (
                "previous channel", "next channel", "first channel",
                "last channel"
            )) + [
            KeyBinding(
                [.enter], hint: "subscribe", help: "subscribe to the selected channel",
                action: .browser(.subscribe), scope: .view(.channelBrowser)),
            KeyBinding(
                [.char("o")], hint: "sort", help: "sort by name, subscribers, users",
                action: .browser(.sort), scope: .view(.channelBrowser)),
            KeyBinding(
                [.char("/")], hint: "filter", help: "filter channels by name", action: .browser(.filter),
                scope: .view(.channelBrowser)),
            KeyBinding(
                [.char("R")], hint: "refresh", help: "refresh now (else every 3 s)", action: .browser(.refresh),
                scope: .view(.channelBrowser)),
            KeyBinding(
                [.escape, .char("b")], hint: "back", help: "clear the filter / back to the panes",
                action: .browser(.close), scope: .view(.channelBrowser)),
        ]
}
