import Foundation
import Synchronization
import Testing

/// A tmux server of its own (`tmux -L SOCKET`) running one command at a fixed size and `TERM`, for
/// end-to-end tests of the real binary. The server is killed by ``stop()``.
final class TmuxSession {
    let socket: String
    private(set) var stopped = false

    /// Starts `command` in a detached session. After the command exits, the pane prints `EXIT=<status>`
    /// and `stty -a` (to check that the terminal was restored), then stays open.
    init(command: String, columns: Int = 140, rows: Int = 42) throws {
        socket = "pushtop-dash-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        // `read` (not `sleep`) keeps the pane open: it ends when kill-server closes the terminal.
        let shell = "\(command); echo EXIT=$?; stty -a; read -r -t 60 REPLY"
        try TmuxSession.tmux(
            capture: false,
            [
                "-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)",
                "-e", "TERM=xterm-256color", "-e", "LANG=C.UTF-8", "-e", "LC_ALL=C.UTF-8",
                // A crash report from the Swift runtime must not wait for a key.
                "-e", "SWIFT_BACKTRACE=interactive=no,color=no", shell,
            ])
    }

    deinit { stop() }

    func stop() {
        guard !stopped else { return }
        stopped = true
        // The pane's processes may ignore SIGHUP (inherited): end them first, then the server.
        if let text = try? TmuxSession.tmux(["-L", socket, "display-message", "-p", "#{pane_pid}"]),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1
        {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
        }
        _ = try? TmuxSession.tmux(capture: false, ["-L", socket, "kill-server"])
    }

    /// The visible screen as text.
    func capture() -> String {
        (try? TmuxSession.tmux(["-L", socket, "capture-pane", "-p"])) ?? ""
    }

    /// Sends keys (tmux key names such as `Enter`, `Escape`, `C-c`, or literal text with `literal`).
    func send(_ keys: String..., literal: Bool = false) {
        _ = try? TmuxSession.tmux(capture: false, ["-L", socket, "send-keys"] + (literal ? ["-l"] : []) + keys)
    }

    func resize(columns: Int, rows: Int) {
        _ = try? TmuxSession.tmux(capture: false, ["-L", socket, "resize-window", "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// A screen for a message: trailing blanks cut, blank lines dropped.
    static func compact(_ screen: String) -> String {
        screen.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.reversed().drop { $0 == " " }.reversed() }
            .filter { !$0.isEmpty }.map { String($0) }.joined(separator: "\n")
    }

    /// A wait that timed out (the screen is in the issue recorded at the wait).
    struct Timeout: Error, CustomStringConvertible {
        var what: String
        var description: String { "timed out waiting for \(what) (the screen is in the issue recorded before)" }
    }

    /// Polls the screen every 50 ms (suspending, not blocking a thread) until `condition` holds; returns that
    /// screen. On timeout records an issue with the screen and throws ``Timeout``, so that the test stops there
    /// instead of running into its next waits.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (String) -> Bool
    ) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = capture()
        while !condition(screen) {
            if Date() > deadline {
                // What was awaited is said again after the screen: a long message can lose its head in a CI log.
                Issue.record(
                    "timed out waiting for \(what); screen:\n\(Self.compact(screen))\n(timed out waiting for \(what))",
                    sourceLocation: sourceLocation)
                throw Timeout(what: what)
            }
            try await Task.sleep(for: .milliseconds(50))
            screen = capture()
        }
        return screen
    }

    /// Waits until the command has exited and `stty -a` has printed its flags.
    @discardableResult
    func waitForExit(timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        try await waitFor("the exit status and stty", timeout: timeout, sourceLocation: sourceLocation) {
            $0.contains("EXIT=") && $0.contains("icanon")
        }
    }

    @discardableResult
    func waitFor(text: String, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> String
    {
        try await waitFor("'\(text)'", timeout: timeout, sourceLocation: sourceLocation) { $0.contains(text) }
    }

    /// Runs tmux with posix_spawn and waitpid (no run loop needed); with `capture`, returns its stdout.
    @discardableResult
    static func tmux(capture: Bool = true, _ arguments: [String]) throws -> String {
        try run(["tmux"] + arguments, capture: capture)
    }

    struct SpawnError: Error, CustomStringConvertible {
        var code: Int32
        var description: String { "posix_spawn failed: \(code)" }
    }

    private static let spawnLock = Mutex(())

    static func run(_ argv: [String], capture: Bool) throws -> String {
        // Close-on-exec: a process another test spawns meanwhile (a tmux server that lives for a minute) must not
        // inherit the write end, or this read waits for that process to exit (a 10 s wait once took 76 s in CI).
        // (`pipe2` is not in Swift's Glibc: the lock keeps our own spawns out of the gap before `fcntl`.)
        var fds: [Int32] = [-1, -1]
        if capture {
            let made = spawnLock.withLock { _ -> Bool in
                guard pipe(&fds) == 0 else { return false }
                _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
                _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
                return true
            }
            guard made else { throw SpawnError(code: errno) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if capture {
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_addclose(&actions, fds[0])
            posix_spawn_file_actions_addclose(&actions, fds[1])
        } else {
            // A new tmux server inherits stdout: a pipe would stay open as long as the server runs.
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var pid: pid_t = 0
        let rc = spawnLock.withLock { _ in posix_spawnp(&pid, argv[0], &actions, nil, cArgs, environ) }
        if capture { close(fds[1]) }
        guard rc == 0 else {
            if capture { close(fds[0]) }
            throw SpawnError(code: rc)
        }
        var output: [UInt8] = []
        if capture {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fds[0], &buffer, buffer.count)
                if n <= 0 { break }
                output += buffer[0..<n]
            }
            close(fds[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return String(decoding: output, as: UTF8.self)
    }

    static var isAvailable: Bool {
        (try? tmux(["-V"]))?.hasPrefix("tmux") ?? false
    }
}

extension TmuxSession {
    /// Unsubscribes from the channels pane's last channel (`2`, `G`, `u`) and waits until no public channel's row
    /// contains `row`.
    func unsubscribeLastChannel(_ channel: String, row: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        send("2")
        send("G")
        send("u")
        try await waitFor("\(channel) to leave the channels pane", sourceLocation: sourceLocation) { screen in
            !screen.split(separator: "\n").contains { $0.contains(row) && $0.contains("public") }
        }
    }
}

/// The `dashboard-preview` binary next to the test bundle.
func previewBinary() -> String {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    var dir = bundle
    // `.build/debug/pushtopPackageTests.xctest` → `.build/debug/`
    if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
    for candidate in [bundle, dir, Bundle.main.bundleURL.deletingLastPathComponent()] {
        let path = candidate.appendingPathComponent("dashboard-preview").path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return dir.appendingPathComponent("dashboard-preview").path
}

/// Whether `stty -a` output shows a sane terminal (echo and canonical mode on).
func terminalIsSane(_ screen: String) -> Bool {
    let words = screen.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init)
    return words.contains("echo") && words.contains("icanon") && !words.contains("-echo") && !words.contains("-icanon")
}
