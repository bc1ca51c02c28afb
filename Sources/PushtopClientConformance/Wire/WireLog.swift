import PushtopProxy

/// Everything the judge has seen, as a value: every connection the client opened (in order) and every attempt
/// the proxy refused. ``ClientWire`` keeps it up to date from the proxy's ``WireRecord``s.
package struct WireLog: Sendable {
    /// An upgrade the proxy refused (during an `outage` fault, or when the upstream refused it).
    package struct Refusal: Sendable {
        package let at: ContinuousClock.Instant
        package let remoteHost: String
        package let target: String
        package let reason: String
    }

    package private(set) var connections: [WireConnection] = []
    package private(set) var refusals: [Refusal] = []
    private var index: [Int: Int] = [:]

    package init() {}

    package mutating func apply(_ record: WireRecord) {
        switch record.event {
        case .attempt(let number?, let host, let target, _):
            index[number] = connections.count
            connections.append(WireConnection(number: number, remoteHost: host, target: target, openedAt: record.at))
        case .attempt(nil, let host, let target, let refusal):
            refusals.append(Refusal(at: record.at, remoteHost: host, target: target, reason: refusal ?? "refused"))
        case .message(let number, let fromClient, let text):
            guard let position = index[number] else { return }
            connections[position].messages.append(WireMessage(at: record.at, fromClient: fromClient, text: text))
        case .ended(let number, let code, let closedBy):
            guard let position = index[number], connections[position].endedAt == nil else { return }
            connections[position].endedAt = record.at
            connections[position].endCode = code
            connections[position].closedBy = closedBy
        }
    }

    package func connection(_ number: Int) -> WireConnection? { index[number].map { connections[$0] } }

    /// The newest connection that is open and established (the one the judge acts on).
    package var current: WireConnection? {
        connections.last { $0.isOpen && $0.established != nil }
    }

    /// Every attempt to connect after `instant` (accepted or refused), in order of arrival.
    package func attempts(after instant: ContinuousClock.Instant) -> [ContinuousClock.Instant] {
        (connections.map(\.openedAt).filter { $0 > instant } + refusals.map(\.at).filter { $0 > instant }).sorted()
    }

    /// The first connection opened after `instant` that the upstream accepted (it has a socket id).
    package func firstEstablished(after instant: ContinuousClock.Instant) -> WireConnection? {
        connections.first { $0.openedAt > instant && $0.established != nil }
    }
}
