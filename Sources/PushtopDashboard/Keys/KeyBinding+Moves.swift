/// The moves every list and view has (a line, a page, the ends); its action enum's cases of these names witness
/// them.
public protocol ViewMoves: Sendable, Equatable {
    static var up: Self { get }
    static var down: Self { get }
    static var pageUp: Self { get }
    static var pageDown: Self { get }
    static var top: Self { get }
    static var bottom: Self { get }
}

extension Action: ViewMoves {}
extension WireAction: ViewMoves {}
extension AuthAction: ViewMoves {}
extension BrowserAction: ViewMoves {}

extension KeyBinding {
    /// A view's move keys, the panes' own (`k`/`↑`, `j`/`↓`, `PgUp`, `PgDn`, `g`/`Home`, `G`/`End`), each with what
    /// it moves in that view.
    /// - Parameters:
    ///   - view: the view they act in.
    ///   - action: the view's action for a move (e.g. `Action.wire`).
    ///   - help: the help overlay's text for a line up and down and for the two ends (pages are "page up/down").
    ///   - bottomHint: the hint bar's text for the end key (none by default).
    static func moves<Move: ViewMoves>(
        in view: ScreenView, _ action: (Move) -> Action,
        help: (up: String, down: String, top: String, bottom: String), bottomHint: String = ""
    ) -> [KeyBinding] {
        [
            KeyBinding([.char("k"), .up], hint: "", help: help.up, action: action(.up), scope: .view(view)),
            KeyBinding([.char("j"), .down], hint: "", help: help.down, action: action(.down), scope: .view(view)),
            KeyBinding([.pageUp], hint: "", help: "page up", action: action(.pageUp), scope: .view(view)),
            KeyBinding([.pageDown], hint: "", help: "page down", action: action(.pageDown), scope: .view(view)),
            KeyBinding([.home, .char("g")], hint: "", help: help.top, action: action(.top), scope: .view(view)),
            KeyBinding(
                [.end, .char("G")], hint: bottomHint, help: help.bottom, action: action(.bottom),
                scope: .view(view)),
        ]
    }
}
