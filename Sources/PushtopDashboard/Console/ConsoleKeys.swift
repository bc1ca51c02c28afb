extension ConsoleAction: ViewMoves {}

/// The debug console's keys (scope: the console is open); `C` opens it from anywhere.
public enum ConsoleKeys {
    public static let bindings: [KeyBinding] =
        [
            KeyBinding(
                [.char("C")], hint: "console",
                help: "debug console: the server's side of the app", action: .console),
            KeyBinding(
                [.char("C")], hint: "", help: "back to the panes", action: .console, scope: .view(.console)),
        ]
        + KeyBinding.moves(
            in: .console, Action.consoleAction,
            help: ("previous row (stops following)", "next row", "oldest row", "follow the newest row"),
            bottomHint: "follow") + [
            KeyBinding(
                [.enter], hint: "json", help: "open the row: its whole JSON",
                action: .consoleAction(.open), scope: .view(.console)),
            KeyBinding(
                [.char("/")], hint: "filter", help: "filter: channel, event, socket, user, data",
                action: .consoleAction(.filter), scope: .view(.console)),
            KeyBinding(
                [.char("p")], hint: "pause", help: "pause / resume (counts the new rows)",
                action: .consoleAction(.pause), scope: .view(.console)),
        ]
        + ConsoleTypeGroup.allCases.map { group in
            KeyBinding(
                [.char(Character(String(group.rawValue)))], hint: group == .connections ? "types" : "",
                help: "show / hide \(group.typesText)",
                action: .consoleAction(.toggle(group)), scope: .view(.console))
        } + [
            KeyBinding(
                [.char("0")], hint: "", help: "show every type", action: .consoleAction(.showAll),
                scope: .view(.console)),
            KeyBinding(
                [.char("f")], hint: "follow socket",
                help: "follow the row's socket (again: stop)",
                action: .consoleAction(.follow), scope: .view(.console)),
            KeyBinding(
                [.char("F")], hint: "frequent", help: "frequently seen: busiest in the last minute",
                action: .consoleAction(.frequent), scope: .view(.console)),
            KeyBinding(
                [.char("o")], hint: "browse", help: "the row's channel in the channel browser",
                action: .consoleAction(.browse), scope: .view(.console)),
            KeyBinding(
                [.char("s")], hint: "sub", help: "subscribe to the row's channel",
                action: .consoleAction(.subscribe), scope: .view(.console)),
            KeyBinding(
                [.char("K")], hint: "kick",
                help: "proxy: close the row's socket, 4200",
                action: .consoleAction(.kick), scope: .view(.console)),
            KeyBinding(
                [.escape], hint: "back", help: "close row / stop following / clear / leave",
                action: .consoleAction(.close), scope: .view(.console)),
        ]
}
