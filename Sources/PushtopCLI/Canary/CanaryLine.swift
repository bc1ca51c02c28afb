import Foundation
import PusherProtocol
import PushtopDashboard
import PushtopKit

/// `pushtop canary`'s output: one JSON object per line, keys in a fixed order.
enum CanaryLine {
    /// A JSON value for a line.
    enum Value {
        case string(String)
        case int(Int)
        case ms(Double?)
        case bool(Bool)
        case raw(String)
    }

    /// `{"k":v,...}` with the keys in the order given.
    static func object(_ fields: [(String, Value)]) -> String {
        "{" + fields.map { quote($0.0) + ":" + encode($0.1) }.joined(separator: ",") + "}"
    }

    static func encode(_ value: Value) -> String {
        switch value {
        case .string(let s): return quote(s)
        case .int(let n): return String(n)
        case .ms(let ms): return ms.map { String(format: "%.2f", $0) } ?? "null"
        case .bool(let b): return b ? "true" : "false"
        case .raw(let text): return text
        }
    }

    /// A JSON string (the protocol library's escaping).
    static func quote(_ s: String) -> String {
        var out = ""
        JSONValue.writeString(s, to: &out)
        return out
    }

    /// The line for a finding of the audit.
    static func finding(_ finding: CanaryAudit.Finding) -> String {
        switch finding {
        case .missed(let node, let seq, let via, let away):
            return object([
                ("type", .string("missed")), ("node", .string(node)), ("seq", .int(seq)),
                ("via", .string(via)), ("while", .string(away ? "away" : "connected")),
            ])
        case .duplicated(let node, let seq):
            return object([("type", .string("duplicated")), ("node", .string(node)), ("seq", .int(seq))])
        case .landedAfterError(let node, let seq, let via):
            return object([
                ("type", .string("landed_after_error")), ("node", .string(node)), ("seq", .int(seq)),
                ("via", .string(via)),
            ])
        case .reordered(let node, let seq, let after):
            return object([
                ("type", .string("reordered")), ("node", .string(node)), ("seq", .int(seq)), ("after", .int(after)),
            ])
        case .late(let node, let seq, let ms):
            return object([
                ("type", .string("late")), ("node", .string(node)), ("seq", .int(seq)), ("latency_ms", .ms(ms)),
            ])
        case .stalled(let node, let seconds):
            return object([("type", .string("stall")), ("node", .string(node)), ("seconds", .ms(seconds))])
        case .resumed(let node):
            return object([("type", .string("resumed")), ("node", .string(node))])
        case .reconnected(let node):
            return object([("type", .string("reconnected")), ("node", .string(node))])
        case .wentAway(let node):
            return object([("type", .string("disconnected")), ("node", .string(node))])
        }
    }

    /// The final line: per node counts and latency percentiles, and whether nothing was lost or duplicated.
    static func summary(_ audit: CanaryAudit) -> String {
        let nodes = audit.nodes.map { node -> String in
            let t = audit.tallies[node]!
            return object([
                ("node", .string(node)), ("published", .int(t.published)), ("received", .int(t.received)),
                ("lost", .int(t.lost)), ("duplicated", .int(t.duplicated)), ("reordered", .int(t.reordered)),
                ("p50_ms", .ms(t.latencies.percentile(50))), ("p99_ms", .ms(t.latencies.percentile(99))),
                ("away", .int(t.away)), ("reconnects", .int(t.reconnects)),
            ])
        }
        return object([
            ("type", .string("summary")), ("nodes", .raw("[" + nodes.joined(separator: ",") + "]")),
            ("ok", .bool(audit.ok)),
        ])
    }
}
