import PusherProtocol

/// One row of the channels pane.
public struct ChannelInfo: Sendable, Hashable {
    public enum Status: Sendable, Hashable {
        case subscribing
        case subscribed
        case error(String)
    }

    public var name: String
    public var kind: ChannelKind
    public var status: Status
    public var events = 0
    public var rate = RateCounter()
    /// The server's subscription count (`pusher:subscription_count`), when it sent one.
    public var subscriptionCount: Int?
    /// The app the channel belongs to (its index in ``DashboardState/apps``).
    public var app = 0

    public init(name: String, status: Status) {
        self.name = name
        self.kind = ChannelKind(channelName: name)
        self.status = status
    }
}
