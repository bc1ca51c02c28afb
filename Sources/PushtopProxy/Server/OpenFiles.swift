import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's open files: each relayed connection holds two (the client's end and the upstream's), so the
/// limit on open files (`ulimit -n`) bounds the connections a proxy can hold. Running into it is said once in a
/// while, at warning level, with the limit and what to do; each refused connection is still a notice of its own.
final class OpenFiles: Sendable {
    private let lastWarningMs = Atomic<Int64>(Int64.min / 2)
    private let interval: Int64

    init(warningInterval: Duration = .seconds(10)) {
        interval = warningInterval.components.seconds * 1000
    }

    /// Whether `error` (from opening a socket) says the process or the system is out of file descriptors.
    static func exhausted(by error: any Error) -> Bool {
        if let io = error as? IOError { return io.errnoCode == EMFILE || io.errnoCode == ENFILE }
        if let connection = error as? NIOConnectionError {
            return connection.connectionErrors.contains { exhausted(by: $0.error) }
        }
        return false
    }

    /// The soft limit on open files, or nil where it cannot be read.
    static var limit: UInt64? {
        var limits = rlimit()
        #if canImport(Glibc)
            let status = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits)
        #else
            let status = getrlimit(RLIMIT_NOFILE, &limits)
        #endif
        return status == 0 ? UInt64(limits.rlim_cur) : nil
    }

    /// Returns the warning to log now, or nil when one was logged within the interval.
    func warning(nowMs: Int64, openConnections: Int) -> String? {
        let last = lastWarningMs.load(ordering: .relaxed)
        guard nowMs - last >= interval,
            lastWarningMs.compareExchange(expected: last, desired: nowMs, ordering: .relaxed).exchanged
        else { return nil }
        let limit = Self.limit.map { "\($0)" } ?? "unknown"
        return "out of open files (limit \(limit), two per relayed connection, \(openConnections) open): "
            + "new connections are refused until some close; raise the limit with `ulimit -n` before starting the proxy"
    }
}

/// On the listening socket: an `accept` that failed for want of file descriptors (NIO backs off and retries) is
/// said the way a failed upstream socket is.
final class AcceptFailureWatch: ChannelInboundHandler, Sendable {
    typealias InboundIn = Any

    private let core: ProxyCore

    init(core: ProxyCore) {
        self.core = core
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        core.noteOpenFailure(error)
        context.fireErrorCaught(error)
    }
}
