/// A JSON value: what a Pusher event's `data` holds once parsed.
///
/// Objects keep their keys in a dictionary; ``JSONValue/jsonString`` writes them sorted so output is
/// stable (tests and `watch` lines compare byte for byte).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses JSON text (any value, not only objects or arrays).
    /// - Throws: ``JSONParseError`` with the byte offset of the problem.
    public init(parsing text: String) throws(JSONParseError) {
        var text = text
        let result: Result<JSONValue, JSONParseError> = text.withUTF8 { bytes in
            var parser = JSONParser(bytes)
            do throws(JSONParseError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    /// Parses JSON, or returns `nil` when the text is not JSON.
    public static func parseIfJSON(_ text: String) -> JSONValue? {
        try? JSONValue(parsing: text)
    }

    /// The JSON in `text`, or `text` itself as a JSON string when it is not JSON: how Pusher's event data
    /// (sent as a JSON document or as a plain string) reads as a value.
    public static func parsedOrString(_ text: String) -> JSONValue {
        parseIfJSON(text) ?? .string(text)
    }

    /// The value of `key` when this is an object; `nil` otherwise or when the key is missing.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number, when this is a number.
    public var numberValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The number as an `Int`, when this is a number with no fractional part that fits.
    public var intValue: Int? {
        guard case .number(let n) = self, n.rounded() == n, abs(n) < 9.0e15 else { return nil }
        return Int(n)
    }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { jsonString }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? container.decode(Double.self) {
            self = .number(n)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n): try container.encode(n)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}
