import PushtopConformance

/// The Pusher documentation the client cases follow.
enum ClientDocs {
    static let pingPong = DocSource.protocol7("Ping and pong messages", anchor: "ping-and-pong-messages")
    static let established = DocSource.protocol7(
        "pusher:connection_established (activity_timeout)", anchor: "connection-events")
    static let reconnectNow = DocSource.protocol7(
        "Error codes: 4200-4299 (reconnect immediately)", anchor: "error-codes")
    static let backOff = DocSource.protocol7(
        "Error codes: 4100-4199 (reconnect after 1 s or more)", anchor: "error-codes")
    static let doNotReconnect = DocSource.protocol7(
        "Error codes: 4000-4099 (do not reconnect unchanged)", anchor: "error-codes")
    static let subscription = DocSource.protocol7("Subscription events", anchor: "subscription-events")
    static let subscribe = DocSource.protocol7("pusher:subscribe", anchor: "pusher-subscribe")
    static let signin = DocSource.protocol7("pusher:signin", anchor: "pusher-signin")
    static let clientEvents = DocSource(
        page: "Events", section: "Triggering client events (private and presence channels, 10 per second)",
        url: "https://pusher.com/docs/channels/using_channels/events/#triggering-client-events")
    static let connection = DocSource(
        page: "Connection", section: "Connection states: reconnection after a lost connection",
        url: "https://pusher.com/docs/channels/using_channels/connection/#available-states")
    static let events = DocSource.protocol7("Events (JSON, event, channel, data)", anchor: "events")
}
