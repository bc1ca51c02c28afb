import Foundation

/// Every option of every `pushtop` command as a Markdown page (`docs/options.md`), generated from the argument
/// parser's own description of the command tree: the JSON `pushtop --experimental-dump-help` prints, the same
/// source the man page and the shell completions are made from.
///
/// It reads the JSON rather than the commands' types, since nothing can import an executable, and rather than
/// `--help` text, which is laid out for a terminal. `OptionsReferenceTests` runs the built binary and fails when
/// the committed page differs; `scripts/gen-docs` rewrites it.
enum OptionsReference {
    /// The path of the page, relative to the repository's root.
    static let path = "docs/options.md"

    /// The part of swift-argument-parser's `ToolInfoV0` that the page uses.
    struct ToolInfo: Decodable {
        var command: Command
    }

    /// A command (`CommandInfoV0`).
    struct Command: Decodable {
        var commandName: String
        var superCommands: [String]?
        var abstract: String?
        var shouldDisplay: Bool?
        var defaultSubcommand: String?
        var subcommands: [Command]?
        var arguments: [Argument]?

        /// `pushtop config init`.
        var fullName: String { ((superCommands ?? []) + [commandName]).joined(separator: " ") }
    }

    /// An argument, option or flag (`ArgumentInfoV0`).
    struct Argument: Decodable {
        struct Name: Decodable {
            var kind: String
            var name: String
        }

        var kind: String
        var shouldDisplay: Bool
        var sectionTitle: String?
        var isRepeating: Bool
        var names: [Name]?
        var valueName: String?
        var defaultValue: String?
        var allValues: [String]?
        var abstract: String?
        var discussion: String?
    }

    /// The page for the dump-help JSON of the root command.
    static func markdown(dumpHelp json: Data) throws -> String {
        let root = try JSONDecoder().decode(ToolInfo.self, from: json).command
        let commands = (root.subcommands ?? []).filter(shown)
        var out = """
            <!-- Generated from the argument parser (pushtop --experimental-dump-help) by
                 Tests/PushtopCLIEndToEndTests/OptionsReference.swift. Do not edit: run scripts/gen-docs. -->
            # Every option of every command

            [← README](../README.md) · [connection options explained](configuration.md#connection-options-every-client-command)

            What `pushtop COMMAND --help` lists, for every command (`--help` adds a discussion and examples; the
            pages of [docs/](README.md) explain each command by task). `pushtop --version` prints the version and the
            commit it was built from.

            """
        out += "\n" + commands.map { "[`\($0.fullName)`](#\(anchor($0.fullName)))" }.joined(separator: " · ") + "\n"
        for command in commands {
            out += section(command, level: 2, isDefault: command.commandName == root.defaultSubcommand)
        }
        return out
    }

    /// Whether a command belongs on the page (not hidden, not the parser's own `help`).
    static func shown(_ command: Command) -> Bool {
        command.shouldDisplay != false && command.commandName != "help"
    }

    /// A command's heading, abstract and argument tables, then its subcommands one level down.
    static func section(_ command: Command, level: Int, isDefault: Bool) -> String {
        var out = "\n\(String(repeating: "#", count: level)) `\(command.fullName)`\n\n"
        if let abstract = command.abstract { out += text(abstract) + "\n" }
        if isDefault { out += "\n`pushtop` without a command runs this one.\n" }
        let arguments = merged((command.arguments ?? []).filter { $0.shouldDisplay && !isEverywhere($0) })
        var titles: [String] = []
        for argument in arguments where !titles.contains(title(argument)) { titles.append(title(argument)) }
        for heading in titles {
            out += "\n**\(heading)**\n\n| | what | default |\n|---|---|---|\n"
            for argument in arguments where title(argument) == heading {
                out +=
                    "| \(usage(argument)) | \(meaning(argument)) | "
                    + "\(argument.defaultValue.map { "`\($0)`" } ?? "") |\n"
            }
        }
        for sub in (command.subcommands ?? []).filter(shown) {
            out += section(sub, level: level + 1, isDefault: sub.commandName == command.defaultSubcommand)
        }
        return out
    }

    /// The arguments with each pair of flags that share one help text (`--tls`, `--no-tls`) as one row.
    static func merged(_ arguments: [Argument]) -> [Argument] {
        var out: [Argument] = []
        for argument in arguments {
            if var last = out.last, last.kind == "flag", argument.kind == "flag", last.abstract == argument.abstract,
                last.sectionTitle == argument.sectionTitle
            {
                last.names = (last.names ?? []) + (argument.names ?? [])
                last.defaultValue = last.defaultValue ?? argument.defaultValue
                out[out.count - 1] = last
            } else {
                out.append(argument)
            }
        }
        return out
    }

    /// `-h, --help` and `--version`: on every command, said once at the top of the page.
    static func isEverywhere(_ argument: Argument) -> Bool {
        argument.names?.contains { $0.name == "help" || $0.name == "version" } ?? false
    }

    /// The group an argument is listed under: its section title, else the parser's own grouping.
    static func title(_ argument: Argument) -> String {
        if let title = argument.sectionTitle { return title }
        return argument.kind == "positional" ? "Arguments" : "Options"
    }

    /// How the argument is written: `<channels> ...`, `-p, --port <port>`, `--tls`.
    static func usage(_ argument: Argument) -> String {
        let value = argument.valueName.map { "<\($0)>" } ?? "<value>"
        if argument.kind == "positional" {
            return "`\(value)\(argument.isRepeating ? " ..." : "")`"
        }
        let names = (argument.names ?? []).map { name -> String in
            switch name.kind {
            case "short": return "-" + name.name
            case "longWithSingleDash": return "-" + name.name
            default: return "--" + name.name
            }
        }.joined(separator: ", ")
        return argument.kind == "option" ? "`\(names) \(value)`" : "`\(names)`"
    }

    /// The argument's help, its discussion, the values it takes and whether it repeats, as one table cell.
    static func meaning(_ argument: Argument) -> String {
        var parts = [argument.abstract, argument.discussion].compactMap { $0 }.map(text)
        if let values = argument.allValues, !values.isEmpty {
            parts.append("One of " + values.map { "`\($0)`" }.joined(separator: ", ") + ".")
        }
        let saysSo = parts.contains { $0.lowercased().contains("repeatable") }
        if argument.isRepeating, argument.kind != "positional", !saysSo { parts.append("Repeatable.") }
        return parts.joined(separator: " ")
    }

    /// Terminal text made safe inside Markdown (and a table cell): one line, and the characters that Markdown
    /// would read as markup escaped.
    static func text(_ plain: String) -> String {
        var out = ""
        for character in plain.trimmingCharacters(in: .whitespacesAndNewlines) {
            switch character {
            case "\n": out += " "
            case "|", "<", "*", "~", "`", "[", "\\": out += "\\" + String(character)
            default: out.append(character)
            }
        }
        return out
    }

    /// GitHub's anchor for a heading made of `text` in backticks: lowercased, spaces as hyphens.
    static func anchor(_ text: String) -> String {
        text.lowercased().replacingOccurrences(of: " ", with: "-")
    }
}
