import PushtopConformance

/// Every client case, in the order a run takes them: the gentle ones first, the close that sends the client away
/// for good (4009) last but for the cases that judge the whole run's messages.
package enum ClientCatalogue {
    /// The catalogue's version (in reports).
    package static let version = "client-1.0"

    package static let cases: [ClientCase] = {
        var cases: [ClientCase] = [PingCases.answersPing, PingCases.pingsAfterSilence]
        cases += ReconnectionCases.all
        cases += [ClosingCases.subscriptionError, ClosingCases.backOffAfter4100, PingCases.noticesStall]
        cases += [ClosingCases.droppedConnection, OutageCase.noStorm, ClosingCases.doNotReconnectAfter4009]
        cases += MessageCases.all
        return cases
    }()

    /// The groups (`client.ping`, `client.reconnect`, …), in order.
    package static var groups: [String] {
        var seen: [String] = []
        for c in cases where !seen.contains(c.group) { seen.append(c.group) }
        return seen
    }

    /// The cases `only` names (ids, groups, or id prefixes); all when it is empty.
    package static func selected(_ only: [String]) -> [ClientCase] {
        guard !only.isEmpty else { return cases }
        return cases.filter { c in only.contains { c.id == $0 || c.group == $0 || c.id.hasPrefix($0) } }
    }
}
