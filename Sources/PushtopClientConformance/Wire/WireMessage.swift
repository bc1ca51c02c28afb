import PusherProtocol

/// One text message on a relayed connection, read once: who sent it, when, its event, channel and data.
package struct WireMessage: Sendable {
    package let at: ContinuousClock.Instant
    /// Sent by the client (`>>`), or received by it (`<<`: relayed from the upstream or written by the judge).
    package let fromClient: Bool
    package let text: String
    /// The message as JSON; `nil` when it is not JSON at all.
    package let json: JSONValue?

    package init(at: ContinuousClock.Instant, fromClient: Bool, text: String) {
        self.at = at
        self.fromClient = fromClient
        self.text = text
        json = JSONValue.parseIfJSON(text)
    }

    /// The `event` field, when it is a string.
    package var event: String? { json?["event"]?.stringValue }

    /// The `channel` field, or for `pusher:subscribe` and `pusher:unsubscribe` the `data.channel` field.
    package var channel: String? {
        if let channel = json?["channel"]?.stringValue { return channel }
        return data?["channel"]?.stringValue
    }

    /// The `data` field as an object: given as one (what clients send) or as a JSON string (what servers send).
    package var data: JSONValue? {
        guard let data = json?["data"] else { return nil }
        if case .string(let text) = data { return JSONValue.parseIfJSON(text) }
        return data
    }

    /// `>> text` or `<< text` at `+seconds` from `origin`, as evidence (long messages cut).
    package func line(since origin: ContinuousClock.Instant) -> String {
        let shown = text.count > 300 ? String(text.prefix(300)) + "…" : text
        return "\(Seconds.since(origin, at)) \(fromClient ? ">>" : "<<") \(shown)"
    }
}

/// Seconds as evidence lines show them.
package enum Seconds {
    /// `+1.234s`.
    package static func since(_ origin: ContinuousClock.Instant, _ instant: ContinuousClock.Instant) -> String {
        "+" + format(instant - origin) + "s"
    }

    /// `1.234`.
    package static func format(_ duration: Duration) -> String {
        let ms = Int((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) * 1000)
        let sign = ms < 0 ? "-" : ""
        let magnitude = abs(ms)
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// A duration in seconds, as a Double.
    package static func value(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
