import Foundation

/// Another process's CPU time and resident memory, read from `/proc/PID` (Linux): a load tool measures the
/// server it drives without sharing its process.
public struct ServerProcess: Sendable {
    /// The process id.
    public let pid: Int32

    /// Watches `pid`.
    public init(pid: Int32) {
        self.pid = pid
    }

    /// User plus system CPU time so far, in seconds (`utime` + `stime` of `/proc/PID/stat`, clock ticks);
    /// `nil` when the process cannot be read.
    public func cpuSeconds() -> Double? {
        cpuTimes().map { $0.user + $0.system }
    }

    /// User and system CPU time so far, in seconds (`utime` and `stime` of `/proc/PID/stat`, clock ticks);
    /// `nil` when the process cannot be read.
    public func cpuTimes() -> (user: Double, system: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // Fields after "(comm)": state is field 3, utime 14, stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user / ticks, system / ticks)
    }

    /// Resident memory (`VmRSS` of `/proc/PID/status`) in KiB; `nil` when the process cannot be read.
    public func residentKiB() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }
}

/// Nanoseconds of the monotonic clock (`CLOCK_MONOTONIC`): the same clock for every thread of the process, so a
/// timestamp a publisher puts in an event can be compared with the time its subscriber reads it.
public func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
