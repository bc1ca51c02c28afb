import Synchronization

/// What the server refused before any app's code ran: requests and sockets of strangers (an unknown app id or key,
/// a missing or wrong signature). They belong to no app, so they are counted here, once per server (it outlives
/// reloads), and exposed as `pushtop_refused_total{reason="…"}` in `/metrics`, every reason from the start (at 0);
/// no app's metrics, debug feed, quotas or webhooks see them.
public final class ServerRefusals: Sendable {
    /// Why a stranger was refused: the `reason` label.
    public enum Reason: String, Sendable, CaseIterable {
        /// A WebSocket on `/app/{key}` with a key no app has (refused with 4001).
        case unknownKey = "unknown_key"
        /// An HTTP API request for an app id no app has (404).
        case unknownApp = "unknown_app"
        /// An HTTP API request whose `auth_key` is not the key of the app it names (401).
        case wrongKey = "wrong_key"
        /// An HTTP API request without its `auth_*` parameters (401).
        case unsigned
        /// An HTTP API request whose `auth_signature` is not the app's (401).
        case badSignature = "bad_signature"
        /// An HTTP API request that gives a query parameter twice (400): which one to sign and act on is ambiguous.
        case repeatedParameter = "repeated_parameter"
    }

    /// Characters of a stranger's input a log line repeats at most.
    static let maxLoggedCharacters = 64

    private let counts = Mutex([Int](repeating: 0, count: Reason.allCases.count))

    public init() {}

    /// Counts one refusal.
    public func count(_ reason: Reason) {
        counts.withLock { $0[Self.index(reason)] += 1 }
    }

    /// How many refusals of `reason` so far.
    public func total(_ reason: Reason) -> Int {
        counts.withLock { $0[Self.index(reason)] }
    }

    /// The counter in Prometheus' text format, every reason written (zero included).
    var exposition: String {
        let counts = counts.withLock { $0 }
        var text = "# HELP pushtop_refused_total Connections and requests refused before reaching any app (strangers), by reason.\n"
        text += "# TYPE pushtop_refused_total counter\n"
        for (index, reason) in Reason.allCases.enumerated() {
            text += "pushtop_refused_total{reason=\"\(reason.rawValue)\"} \(counts[index])\n"
        }
        return text
    }

    /// A stranger's input as a log line may quote it: control characters, quotes and backslashes escaped, non-ASCII
    /// as `\u{…}`, at most ``maxLoggedCharacters`` characters, then `…`. A log reader never sees raw bytes a
    /// stranger chose (no forged lines, no terminal escapes).
    static func printable(_ text: String) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < maxLoggedCharacters else {
                result += "…"
                break
            }
            count += 1
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case " "..."~": result.unicodeScalars.append(scalar)
            default: result += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return result
    }

    private static func index(_ reason: Reason) -> Int {
        Reason.allCases.firstIndex(of: reason)!
    }
}
