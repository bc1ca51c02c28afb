import PusherProtocol
import PushtopDashboard

/// Deterministic synthetic events for the demo feed.
struct DemoGenerator {
    private var n = 0
    private var guests = 0
    private var present: [String] = []
    private static let symbols = ["BTC", "ETH", "SOL", "ADA", "東証", "DOGE"]

    mutating func nextEvent(now: Double) -> ClientEvent {
        n += 1
        switch n % 10 {
        case 0, 1, 2, 3, 4, 5:
            let symbol = Self.symbols[n % Self.symbols.count]
            let price = 100 + (n * 37) % 900
            return .event(
                ChannelEvent(
                    channel: "market-data", name: "price-update",
                    dataText: #"{"symbol":"\#(symbol)","price":\#(price).\#(n % 100),"seq":\#(n)}"#, receivedAt: now))
        case 6, 7:
            return .event(
                ChannelEvent(
                    channel: "private-orders", name: "order-filled",
                    dataText: #"{"id":"ord-\#(n)","qty":\#(n % 17 + 1),"side":"\#(n % 2 == 0 ? "buy" : "sell")"}"#,
                    receivedAt: now))
        case 8:
            return .event(
                ChannelEvent(
                    channel: "presence-lobby", name: "client-typing",
                    dataText: #"{"text":"hello 👋 #\#(n)"}"#, userID: n % 4 == 0 ? "alice" : "bob", receivedAt: now))
        default:
            return .event(
                ChannelEvent(
                    channel: "cache-config", name: "config-changed",
                    dataText: #"{"flag":"beta-\#(n % 5)","on":\#(n % 3 == 0)}"#, receivedAt: now))
        }
    }

    mutating func nextPresenceChange() -> ClientEvent {
        if present.count >= 3 || (!present.isEmpty && guests % 3 == 2) {
            let id = present.removeFirst()
            guests += 1
            return .memberRemoved(channel: "presence-lobby", member: PresenceMember(userID: id))
        }
        guests += 1
        let id = "guest-\(guests)"
        present.append(id)
        return .memberAdded(
            channel: "presence-lobby",
            member: PresenceMember(userID: id, userInfo: ["name": .string("Guest \(guests)")]))
    }
}
