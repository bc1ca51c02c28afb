import Foundation

/// Which options the command line gives explicitly, for options whose parsed value has a default (so the
/// value alone cannot tell).
enum CommandLineFlags {
    /// The flags of `names` (flag → field) that appear before `--`, as field → flag.
    static func given(_ names: [String: String], arguments: [String] = CommandLine.arguments) -> [String: String] {
        var found: [String: String] = [:]
        for argument in arguments.dropFirst() {
            if argument == "--" { break }
            let flag = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if let field = names[flag] { found[field] = flag }
        }
        return found
    }
}
