import CNcurses

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The curses session: start, read keys, draw a frame, stop. Every ncurses call except the canvas's lives
/// here.
///
/// - Important: main actor only (ncurses is not thread-safe).
@MainActor
final class CursesScreen {
    private(set) var size = Size(rows: 24, columns: 80)
    private var attributes: [attr_t] = []
    private let colorAllowed: Bool

    init(colorAllowed: Bool) {
        self.colorAllowed = colorAllowed
    }

    /// Starts curses: UTF-8 locale, raw keys (Ctrl-C, Ctrl-S arrive as keys), no echo, keypad, no cursor.
    func start(mouse: Bool) {
        if setlocale(LC_ALL, "") == nil || !CursesScreen.localeIsUTF8() {
            setlocale(LC_ALL, "C.UTF-8")
        }
        initscr()
        // ncurses 6.4 flushes its output after every cursor move until the screen has been suspended and resumed
        // once (its `_endwin` stays `ewInitial`), so a frame went out in one small write per changed line. One
        // endwin/refresh pair, before anything is drawn, makes a frame one write.
        endwin()
        refresh()
        raw()
        noecho()
        nonl()
        keypad(pt_stdscr(), true)
        nodelay(pt_stdscr(), true)
        intrflush(pt_stdscr(), false)
        leaveok(pt_stdscr(), true)
        curs_set(0)
        set_escdelay(25)
        // No typeahead check during an update: curses would poll stdin and flush its output every few lines, so a
        // frame went out in dozens of 10-byte writes. Keys are read right after each frame anyway.
        typeahead(-1)
        if has_colors() {
            start_color()
            use_default_colors()
        }
        if mouse {
            mousemask(pt_mouse_mask(), nil)
            mouseinterval(0)
        }
        size = readSize()
    }

    /// Ends curses (once).
    func stop() {
        TerminalGuard.restore()
    }

    func apply(_ theme: Theme) {
        attributes = CursesPalette.apply(theme, color: colorAllowed)
    }

    /// The terminal's size from the tty (after SIGWINCH), and curses told about it.
    func handleResize() -> Size {
        var rows: Int32 = 0, cols: Int32 = 0
        if pt_terminal_size(1, &rows, &cols) == 0, rows > 0, cols > 0 {
            resizeterm(rows, cols)
        }
        size = readSize()
        return size
    }

    private func readSize() -> Size {
        Size(rows: Int(pt_lines()), columns: Int(pt_cols()))
    }

    /// Reads every key waiting (non-blocking).
    func readInput() -> [UIEvent] {
        var events: [UIEvent] = []
        var text = ""
        func flushText() {
            if !text.isEmpty {
                for ch in text { events.append(.key(.char(ch))) }
                text = ""
            }
        }
        while events.count + text.count < 4096 {
            var ch: wint_t = 0
            let result = pt_get_wch(&ch)
            if result == pt_err() { break }
            if result == pt_key_code_yes() {
                flushText()
                let code = Int32(ch)
                if code == pt_key_resize() {
                    // resizeterm queues KEY_RESIZE itself: only read the size (calling resizeterm again
                    // would queue another one ahead of the real keys).
                    size = readSize()
                    events.append(.resize(size))
                } else if code == pt_key_mouse() {
                    if let m = readMouse() { events.append(.mouse(m)) }
                } else if let key = CursesScreen.key(code: code) {
                    events.append(.key(key))
                }
                continue
            }
            let value = UInt32(ch)
            if let key = CursesScreen.key(character: value) {
                flushText()
                events.append(.key(key))
            } else if let scalar = Unicode.Scalar(value) {
                text.unicodeScalars.append(scalar)
            }
        }
        flushText()
        return EscapeSequences.combine(events)
    }

    private func readMouse() -> MouseAction? {
        var event = MEVENT()
        guard getmouse(&event) == pt_ok() else { return nil }
        let row = Int(event.y), column = Int(event.x)
        if pt_mouse_is_wheel_up(event.bstate) != 0 { return .wheelUp(row: row, column: column) }
        if pt_mouse_is_wheel_down(event.bstate) != 0 { return .wheelDown(row: row, column: column) }
        if pt_mouse_is_click(event.bstate) != 0 { return .click(row: row, column: column) }
        return nil
    }

    /// Draws a frame: the view into the curses canvas, then one `doupdate` (curses sends only what changed,
    /// so there is no flicker).
    func draw(_ state: DashboardState) {
        var canvas = CursesCanvas(size: size, attributes: attributes)
        DashboardView.draw(state, into: &canvas)
        wnoutrefresh(pt_stdscr())
        doupdate()
    }

    /// Forgets what is on the terminal and in curses' own copy of the screen, so that the next frame repaints
    /// every cell (Ctrl-L).
    func invalidate() {
        werase(pt_stdscr())
        clearok(pt_curscr(), true)
    }

    static func localeIsUTF8() -> Bool {
        guard let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
        let name = String(cString: codeset).uppercased()
        return name == "UTF-8" || name == "UTF8"
    }

    /// Control characters and special keys that arrive as characters.
    static func key(character value: UInt32) -> Key? {
        switch value {
        case 0x09: return .tab
        case 0x0A, 0x0D: return .enter
        case 0x1B: return .escape
        case 0x7F, 0x08: return .backspace
        case 0x01...0x1A: return .ctrl(Character(Unicode.Scalar(value + 0x60)!))
        case 0..<0x20: return nil
        default: return nil
        }
    }

    /// Curses key codes.
    static func key(code: Int32) -> Key? { keyCodes[code] }

    /// The keys curses decodes (arrows, Home/End, pages, back-tab, keypad Enter, Backspace, Delete).
    private static let keyCodes: [Int32: Key] = [
        pt_key_up(): .up, pt_key_down(): .down, pt_key_left(): .left, pt_key_right(): .right,
        pt_key_home(): .home, pt_key_end(): .end, pt_key_ppage(): .pageUp, pt_key_npage(): .pageDown,
        pt_key_btab(): .backTab, pt_key_enter(): .enter, pt_key_backspace(): .backspace, pt_key_dc(): .delete,
    ]
}
