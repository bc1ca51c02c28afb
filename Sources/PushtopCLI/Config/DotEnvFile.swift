import PushtopConfig
import PushtopDashboard
import PushtopKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `.env` file as dotenv writes and reads it (Laravel's vlucas/phpdotenv, Node's dotenv): `KEY=value`
/// lines, `export KEY=value`, `#` comments (whole lines, or after a space in unquoted values), single quotes
/// (literal), double quotes (escapes `\n \t \" \\ \$`, may span lines), and `${VAR}` / `${VAR:-default}`
/// references to keys above in the file or, failing that, to the environment.
public struct DotEnvFile: Sendable, Equatable {
    /// One assignment: the key, its value after quotes, escapes and references, and its line (1-based).
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: String
        public var line: Int
    }

    /// Where the file came from (its path), for messages.
    public var path: String
    /// The assignments in file order (a key assigned twice appears twice; ``value(_:)`` takes the last).
    public var entries: [Entry] = []

    /// The last assignment of `key`.
    public func entry(_ key: String) -> Entry? { entries.last { $0.key == key } }

    /// The last value of `key`, `nil` when the file does not assign it.
    public func value(_ key: String) -> String? { entry(key)?.value }

    /// Reads the file at `path`.
    public static func load(path: String, environment: [String: String]) throws(ConfigError) -> DotEnvFile {
        guard let f = fopen(path, "rb") else {
            throw ConfigError(source: path, message: "cannot read the file: \(String(cString: strerror(errno)))")
        }
        fclose(f)
        guard let text = TextFile.read(path) else {
            throw ConfigError(source: path, message: "cannot read the file (is it a folder?)")
        }
        return try parse(text, path: path, environment: environment)
    }

    /// Parses dotenv text; errors name the file, the line and what is wrong.
    public static func parse(_ text: String, path: String, environment: [String: String] = [:]) throws(ConfigError)
        -> DotEnvFile
    {
        var file = DotEnvFile(path: path)
        var parser = DotEnvParser(characters: Array(text), path: path)
        while let item = try parser.next() {
            let (key, raw, line) = item
            let known = Dictionary(file.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
            let value = raw.expand { name in known[name] ?? environment[name] }
            file.entries.append(Entry(key: key, value: value, line: line))
        }
        return file
    }
}

/// A value as written: literal pieces and `${VAR}` references (single-quoted text has none).
struct DotEnvValue {
    enum Piece { case text(String), reference(name: String, fallback: String?) }
    var pieces: [Piece] = []

    mutating func append(_ c: Character) {
        if case .text(let s) = pieces.last {
            pieces[pieces.count - 1] = .text(s + String(c))
        } else {
            pieces.append(.text(String(c)))
        }
    }

    /// The value with references replaced (an unknown name with no `:-default` becomes empty, as in dotenv).
    func expand(_ lookup: (String) -> String?) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let s): return s
            case .reference(let name, let fallback):
                if let v = lookup(name), !(v.isEmpty && fallback != nil) { return v }
                return fallback ?? ""
            }
        }.joined()
    }
}
