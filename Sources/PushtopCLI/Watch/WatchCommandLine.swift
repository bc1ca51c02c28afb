import PusherChannels

/// One command read by `watch --stdin`.
enum WatchCommandLine: Equatable {
    case subscribe(String)
    case unsubscribe(String)
    case trigger(channel: String, event: String, data: JSONValue)
    case disconnect
    case connect
    case signIn
    case signOut

    struct ParseError: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    /// Parses one line of stdin.
    static func parse(_ line: String) throws(ParseError) -> WatchCommandLine {
        guard let value = JSONValue.parseIfJSON(line) else {
            throw ParseError(description: "command is not JSON: \(snippet(line))")
        }
        guard case .object(let fields) = value else {
            throw ParseError(description: "command must be a JSON object with an \"action\"")
        }
        guard let action = fields["action"]?.stringValue else {
            throw ParseError(description: "command has no \"action\" string")
        }
        func channel() throws(ParseError) -> String {
            guard let c = fields["channel"]?.stringValue else {
                throw ParseError(description: "\"\(action)\" needs a \"channel\" string")
            }
            return c
        }
        switch action {
        case "subscribe": return .subscribe(try channel())
        case "unsubscribe": return .unsubscribe(try channel())
        case "trigger":
            let c = try channel()
            guard let event = fields["event"]?.stringValue else {
                throw ParseError(description: "\"trigger\" needs an \"event\" string")
            }
            return .trigger(channel: c, event: event, data: fields["data"] ?? .object([:]))
        case "disconnect": return .disconnect
        case "connect": return .connect
        case "signin": return .signIn
        case "signout": return .signOut
        default:
            throw ParseError(
                description:
                    "unknown action \"\(action)\" (subscribe, unsubscribe, trigger, connect, disconnect, signin, signout)"
            )
        }
    }

    private static func snippet(_ s: String) -> String {
        s.count > 80 ? String(s.prefix(80)) + "…" : s
    }
}
