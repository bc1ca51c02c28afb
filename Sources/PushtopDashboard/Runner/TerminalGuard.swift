import CNcurses

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Restores the terminal on every exit path: a normal return, `exit()`, and crash signals (SIGSEGV, SIGBUS,
/// SIGABRT, SIGILL (Swift traps), SIGFPE, SIGTRAP), whose handler (in C, `pt_crash_handler`) restores the
/// terminal and then passes the signal on to the handler that was there before.
enum TerminalGuard {
    /// Installs the crash handlers and an `atexit` hook. Call before `initscr`.
    static func install() {
        pt_install_crash_handlers()
        atexit { TerminalGuard.restore() }
    }

    /// Puts the terminal back (once: `endwin` twice overwrites the last line printed after exit).
    static func restore() {
        if pt_stdscr() != nil, isendwin() == false {
            endwin()
        }
    }
}
