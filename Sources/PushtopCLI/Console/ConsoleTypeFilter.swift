import PusherProtocol

/// `--type T` (repeatable, or comma-separated): the row types to show; none given: every type.
public struct ConsoleTypeFilter: Sendable, Hashable {
    /// The types shown; empty: every type.
    public var types: Set<ConsoleRowType>

    public init(types: Set<ConsoleRowType> = []) {
        self.types = types
    }

    /// Reads `--type` values (`connection`, `api_message,client_event`…).
    /// - Throws: ``ConsoleTypeFilterError`` naming an unknown type and the valid ones.
    public init(parsing values: [String]) throws(ConsoleTypeFilterError) {
        var types: Set<ConsoleRowType> = []
        for value in values {
            for name in value.split(separator: ",") {
                let name = name.trimmingWhitespace()
                if name.isEmpty { continue }
                guard let type = ConsoleRowType(rawValue: name) else { throw ConsoleTypeFilterError(name: name) }
                types.insert(type)
            }
        }
        self.types = types
    }

    /// Whether a row of `type` is shown.
    public func admits(_ type: ConsoleRowType) -> Bool {
        types.isEmpty || types.contains(type)
    }

    /// The types in their documented order (for the server's `types=` query); empty: every type.
    public var ordered: [ConsoleRowType] {
        ConsoleRowType.allCases.filter(types.contains)
    }
}

/// An unknown `--type`.
public struct ConsoleTypeFilterError: Error, Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var description: String {
        "unknown type '\(name)'; the types are: \(ConsoleRowType.allCases.map(\.rawValue).joined(separator: ", "))"
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
