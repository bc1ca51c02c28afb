/// What fills the body of the screen: the four panes, or one of the debugger views that replace them.
public enum ScreenView: Sendable, Hashable {
    /// Connection, channels, members and the event log.
    case panes
    /// `w`: every WebSocket frame.
    case wireInspector
    /// From the channel list: what the authorization of a subscription did.
    case authInspector
    /// `b`: the app's occupied channels (HTTP API).
    case channelBrowser
    /// `C`: the app's debug console (a `pushtop serve` feed, received webhooks).
    case console
}
