import Synchronization

/// What the server refused before any app's code ran, by reason: strangers (a WebSocket with a key no app has, a
/// request for an app id nobody serves) belong to no app, so they are counted here, at the server level, and never
/// in an app's metrics, console or webhooks.
///
/// `GET /metrics` shows them as `pushtop_refused_total{reason="…"}`, every reason from the start (at 0).
public final class ServerRefusals: Sendable {
    /// Why a stranger was refused.
    public enum Reason: String, Sendable, CaseIterable {
        /// A WebSocket on `/app/{key}` with a key no app has (refused with 4001).
        case unknownKey = "unknown_key"
        /// An HTTP request for `/apps/{id}/…` with an id no app has (404).
        case unknownApp = "unknown_app"
    }

    /// Characters of a stranger's input a log line repeats at most.
    static let maxLoggedCharacters = 64

    private let counts = Mutex<[Reason: Int]>([:])

    public init() {}

    /// Counts one refusal.
    public func count(_ reason: Reason) {
        counts.withLock { $0[reason, default: 0] += 1 }
    }

    /// How many refusals of `reason` so far.
    public func total(_ reason: Reason) -> Int {
        counts.withLock { $0[reason] ?? 0 }
    }

    /// The lines of `GET /metrics`.
    var exposition: String {
        let counts = counts.withLock { $0 }
        var lines = [
            "# HELP pushtop_refused_total Connections and requests refused before reaching any app (strangers), by reason.",
            "# TYPE pushtop_refused_total counter",
        ]
        for reason in Reason.allCases {
            lines.append("pushtop_refused_total{reason=\"\(reason.rawValue)\"} \(counts[reason] ?? 0)")
        }
        return lines.joined(separator: "\n") + "\n"
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
}
