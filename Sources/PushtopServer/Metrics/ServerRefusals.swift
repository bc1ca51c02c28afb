import Synchronization

/// What the server refused before any app's code ran: requests and sockets of strangers (an unknown app id or key,
/// a missing or wrong signature). They belong to no app, so they are counted here, once per server, and exposed as
/// `pushtop_refused_total{reason="…"}` in `/metrics`; no app's metrics, debug feed, quotas or webhooks see them.
final class ServerRefusals: Sendable {
    /// Why a stranger was refused: the `reason` label.
    enum Reason: String, Sendable, CaseIterable {
        /// An HTTP API request for an app id no app has (404).
        case unknownApp = "unknown_app"
        /// A WebSocket for `/app/{key}` with a key no app has (4001).
        case unknownKey = "unknown_key"
        /// An HTTP API request whose `auth_key` is not the key of the app it names (401).
        case wrongKey = "wrong_key"
        /// An HTTP API request without its `auth_*` parameters (401).
        case unsigned
        /// An HTTP API request whose `auth_signature` is not the app's (401).
        case badSignature = "bad_signature"
        /// An HTTP API request that gives a query parameter twice (400): which one to sign and act on is ambiguous.
        case repeatedParameter = "repeated_parameter"
    }

    private let counts = Mutex([Int](repeating: 0, count: Reason.allCases.count))

    init() {}

    /// Counts one refusal.
    func count(_ reason: Reason) {
        counts.withLock { $0[Self.index(reason)] += 1 }
    }

    /// Refusals so far for `reason`.
    func count(of reason: Reason) -> Int {
        counts.withLock { $0[Self.index(reason)] }
    }

    /// The counter in Prometheus' text format, every reason written (zero included).
    var exposition: String {
        var text = "# HELP pushtop_refused_total Requests and connections refused before reaching any app, by reason.\n"
        text += "# TYPE pushtop_refused_total counter\n"
        for reason in Reason.allCases {
            text += "pushtop_refused_total{reason=\"\(reason.rawValue)\"} \(count(of: reason))\n"
        }
        return text
    }

    private static func index(_ reason: Reason) -> Int {
        Reason.allCases.firstIndex(of: reason)!
    }
}
