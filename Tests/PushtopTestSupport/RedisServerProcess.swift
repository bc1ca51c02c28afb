import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
    private let systemKill = Glibc.kill
#elseif canImport(Darwin)
    import Darwin
    private let systemKill = Darwin.kill
#endif

/// A real `redis-server` on 127.0.0.1 for tests: a free port, no persistence (`--save '' --appendonly no`),
/// started and stopped by the test, and able to die (SIGKILL) and come back on the same port.
///
/// ```swift
/// let redis = try await RedisServerProcess.start()
/// defer { redis.kill() }
/// // point the client at redis.url; later:
/// redis.kill(); try await redis.restart()
/// ```
///
/// Needs `redis-server` on the `PATH` (`scripts/install-deps` installs it).
public final class RedisServerProcess: Sendable {
    /// What went wrong starting the server.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        /// redis-server exited at once: most likely its port was taken.
        public var portTaken = false
    }

    /// The TCP port it listens on (the same across restarts).
    public let port: Int
    /// The password set with `--requirepass`, if any.
    public let password: String?
    private let process = Mutex<Process?>(nil)

    private init(port: Int, password: String?) {
        self.port = port
        self.password = password
    }

    deinit {
        if let process = process.withLock({ $0 }), process.isRunning {
            _ = systemKill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// `redis://[:password@]127.0.0.1:PORT`, or with `/database`.
    public func url(database: Int = 0) -> String {
        let auth = password.map { ":\($0)@" } ?? ""
        return "redis://\(auth)127.0.0.1:\(port)" + (database == 0 ? "" : "/\(database)")
    }

    /// `redis://127.0.0.1:PORT` (with the password, if any).
    public var url: String { url() }

    /// Starts `redis-server` on `port` (default: a free one below the ephemeral range, so that a restart finds it
    /// still free) and returns once it answers `PING`.
    public static func start(port: Int? = nil, password: String? = nil, timeout: Double = 10) async throws
        -> RedisServerProcess
    {
        if let port {
            let server = RedisServerProcess(port: port, password: password)
            try await server.launch(timeout: timeout)
            return server
        }
        // The free port can be taken before redis-server binds it (another test picks ports the same way).
        var attempt = 0
        while true {
            attempt += 1
            let server = RedisServerProcess(port: try freeLocalPort(), password: password)
            do {
                try await server.launch(timeout: timeout)
                return server
            } catch let failure as Failure where failure.portTaken && attempt < 5 {
                continue
            }
        }
    }

    /// The process id while running.
    public var pid: Int32? {
        process.withLock { $0?.isRunning == true ? $0?.processIdentifier : nil }
    }

    /// Whether the server process runs.
    public var isRunning: Bool { pid != nil }

    /// Kills the server (SIGKILL: no goodbye to its clients' sockets beyond the kernel's) and waits until it is
    /// gone.
    public func kill() {
        terminate(signal: SIGKILL)
    }

    /// Stops the server (SIGTERM) and waits until it is gone.
    public func stop() {
        terminate(signal: SIGTERM)
    }

    /// Starts the server again on the same port (after ``kill()`` or ``stop()``), empty, and returns once it
    /// answers `PING`.
    public func restart(timeout: Double = 10) async throws {
        try await launch(timeout: timeout)
    }

    private func terminate(signal: Int32) {
        let running = process.withLock { $0.take() }
        guard let running else { return }
        if running.isRunning { _ = systemKill(running.processIdentifier, signal) }
        // A child of this process may start with SIGTERM blocked (Foundation's Process passes on the spawning
        // thread's signal mask), and then never sees it: after 5 s, SIGKILL, rather than wait forever.
        let deadline = Date().addingTimeInterval(5)
        while running.isRunning, Date() < deadline { usleep(10_000) }
        if running.isRunning { _ = systemKill(running.processIdentifier, SIGKILL) }
        running.waitUntilExit()
    }

    private func launch(timeout: Double) async throws {
        let process = Process()
        process.executableURL = try Self.executable()
        var arguments = [
            "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", FileManager.default.temporaryDirectory.path, "--loglevel", "warning",
        ]
        if let password { arguments += ["--requirepass", password] }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process.withLock { $0 = process }
        let port = port
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard process.isRunning else {
                throw Failure(
                    description: "redis-server exited at once (status \(process.terminationStatus)); "
                        + "is port \(port) taken?", portTaken: true)
            }
            if (try? await offloaded({ Self.answersPing(port: port) })) == true { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        terminate(signal: SIGKILL)
        throw Failure(description: "redis-server did not answer PING on port \(port) within \(timeout) s")
    }

    /// Whether `redis-server` is installed (scripts/install-deps installs it).
    public static var isAvailable: Bool { (try? executable()) != nil }

    private static func executable() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
            let candidate = "\(directory)/redis-server"
            if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        throw Failure(description: "redis-server is not installed (scripts/install-deps installs it)")
    }

    /// Whether something on `port` answers an inline `PING` the way Redis does (`+PONG`, or `-NOAUTH` when a
    /// password is required).
    private static func answersPing(port: Int) -> Bool {
        guard let socket = try? RawSocket(port: port, timeout: 1) else { return false }
        defer { socket.close() }
        guard (try? socket.send("PING\r\nQUIT\r\n")) != nil else { return false }
        let reply = String(decoding: socket.readToEnd().bytes, as: UTF8.self)
        return reply.hasPrefix("+PONG") || reply.hasPrefix("-NOAUTH")
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on now, below the kernel's ephemeral range: after its server
/// stops, the port stays free for a restart (a port in the ephemeral range can meanwhile become the local end of
/// some other test's outgoing connection).
public func freeLocalPort() throws -> Int {
    let firstEphemeral =
        (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
        .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32768
    let range = 10_000..<max(10_001, min(firstEphemeral, 32768))
    for _ in 0..<50 {
        let port = Int.random(in: range)
        if (try? bindAndRelease(port: port)) != nil { return port }
    }
    return try bindAndRelease(port: 0)
}

/// Binds 127.0.0.1:`port` (0: any), releases it, and returns the port bound.
private func bindAndRelease(port: Int) throws -> Int {
    #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw RedisServerProcess.Failure(description: "socket() failed: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else { throw RedisServerProcess.Failure(description: "bind() to a free port failed: \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}
