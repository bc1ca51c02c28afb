import Foundation
import PusherProtocol

/// Why a fault rule cannot be read; the message names the part that is wrong.
public struct FaultRuleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The rule as given.
    public var rule: String
    /// What is wrong with it.
    public var problem: String

    /// `fault 'RULE': PROBLEM`.
    public var description: String { "fault '\(rule)': \(problem)" }
}

extension FaultRule {
    /// Reads the compact syntax (see ``FaultRule``).
    public init(parsing text: String) throws(FaultRuleError) {
        func fail(_ problem: String) -> FaultRuleError { FaultRuleError(rule: text, problem: problem) }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard let head = parts.first, !head.isEmpty else { throw fail("empty rule") }
        let headParts = head.split(separator: ":", maxSplits: 1).map(String.init)
        let name = headParts[0].lowercased()
        let argument = headParts.count > 1 ? headParts[1] : nil
        self.init(action: try Self.parsedAction(name, argument: argument, rule: text))
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, !pair[1].isEmpty else { throw fail("'\(part)' is not KEY=VALUE") }
            try set(pair[0], to: pair[1], rule: text)
        }
    }

    /// The action a rule's head names, with its argument (`close:4200`, `delay:500ms`).
    private static func parsedAction(
        _ name: String, argument: String?, rule text: String
    ) throws(FaultRuleError) -> Action {
        func fail(_ problem: String) -> FaultRuleError { FaultRuleError(rule: text, problem: problem) }
        switch name {
        case "close":
            guard let argument, let code = Int(argument), code == 1006 || (1000...4999).contains(code) else {
                throw fail("close needs a close code, e.g. close:4200 (1006 drops the connection)")
            }
            return .close(code: code)
        case "refuse-subscribe", "refuse":
            let count = argument.map { Int($0) } ?? 1
            guard let count, count > 0 else { throw fail("refuse-subscribe takes a positive count") }
            return .refuseSubscriptions(count: count)
        case "drop": return .drop
        case "duplicate": return .duplicate
        case "delay":
            guard let argument, let seconds = Self.seconds(argument, defaultUnit: 0.001), seconds >= 0 else {
                throw fail("delay needs a time, e.g. delay:500ms or delay:2s")
            }
            return .delay(milliseconds: Int((seconds * 1000).rounded()))
        case "stall": return .stall
        case "outage":
            guard let argument, let seconds = Self.seconds(argument, defaultUnit: 1), seconds > 0 else {
                throw fail("outage needs a duration, e.g. outage:10s")
            }
            return .outage(seconds: seconds)
        default:
            throw fail("unknown action '\(name)': close, refuse-subscribe, drop, duplicate, delay, stall or outage")
        }
    }

    /// Sets what a `KEY=VALUE` part names.
    private mutating func set(_ key: String, to value: String, rule text: String) throws(FaultRuleError) {
        func fail(_ problem: String) -> FaultRuleError { FaultRuleError(rule: text, problem: problem) }
        switch key.lowercased() {
        case "channel": channel = value
        case "event": event = value
        case "socket": socketID = value
        case "user": userID = value
        case "fraction":
            guard let share = Double(value), share > 0, share <= 1 else {
                throw fail("fraction must be more than 0 and at most 1")
            }
            fraction = share
        case "after":
            guard let seconds = Self.seconds(value, defaultUnit: 1), seconds >= 0 else {
                throw fail("after needs a time, e.g. after=5s")
            }
            after = seconds
        case "times":
            guard let count = Int(value), count > 0 else { throw fail("times must be a positive number") }
            times = count
        default:
            throw fail("unknown key '\(key)': channel, event, socket, user, fraction, after or times")
        }
    }

    /// `500ms`, `2s`, `1.5` (in `defaultUnit` seconds).
    static func seconds(_ text: String, defaultUnit: Double) -> Double? {
        if text.hasSuffix("ms") { return Double(text.dropLast(2)).map { $0 / 1000 } }
        if text.hasSuffix("s") { return Double(text.dropLast()) }
        if text.hasSuffix("m") { return Double(text.dropLast()).map { $0 * 60 } }
        return Double(text).map { $0 * defaultUnit }
    }

    /// Reads the control endpoint's JSON form: `{"action":"close","code":4200,"socket":"1.2"}`, or
    /// `{"rule":"close:4200,socket=1.2"}` in the compact syntax.
    public init(json: JSONValue) throws(FaultRuleError) {
        if let rule = json["rule"]?.stringValue {
            try self.init(parsing: rule)
            return
        }
        guard let action = json["action"]?.stringValue else {
            throw FaultRuleError(rule: json.jsonString, problem: "no \"action\" (or \"rule\")")
        }
        var text = action
        let argumentKey: String?
        switch action {
        case "close": argumentKey = "code"
        case "refuse-subscribe", "refuse": argumentKey = "count"
        case "delay": argumentKey = "ms"
        case "outage": argumentKey = "seconds"
        default: argumentKey = nil
        }
        if let argumentKey, let value = json[argumentKey] {
            let shown = value.stringValue ?? value.jsonString
            text += ":" + (argumentKey == "ms" ? "\(shown)ms" : shown)
        }
        for (jsonKey, ruleKey) in [
            ("channel", "channel"), ("event", "event"), ("socket", "socket"), ("socket_id", "socket"),
            ("user", "user"), ("user_id", "user"), ("fraction", "fraction"), ("after", "after"), ("times", "times"),
        ] {
            if let value = json[jsonKey] { text += ",\(ruleKey)=\(value.stringValue ?? value.jsonString)" }
        }
        try self.init(parsing: text)
    }
}
