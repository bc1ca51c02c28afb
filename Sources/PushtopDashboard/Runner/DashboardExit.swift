/// Why the dashboard stopped.
public enum DashboardExit: Sendable, Hashable {
    /// `q` or Ctrl-C.
    case quit
    /// SIGINT or SIGTERM from outside.
    case signal(Int32)

    /// The conventional process exit status: 0, or 128 + the signal.
    public var exitStatus: Int32 {
        switch self {
        case .quit: return 0
        case .signal(let s): return 128 + s
        }
    }
}
