#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The wall clock, the local time zone and file-name stamps, on the C library (no Foundation).
public enum DashboardClock {
    /// Seconds since 1970, as the log, recordings and frames stamp them.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The local time zone's offset from UTC, in seconds (the log's clock column).
    static func utcOffset() -> Int {
        var t = time(nil)
        var tmValue = tm()
        localtime_r(&t, &tmValue)
        return Int(tmValue.tm_gmtoff)
    }

    /// `20250102-150405`, local time: saved logs' and recordings' file names.
    static func fileStamp() -> String {
        var t = time(nil)
        var tmValue = tm()
        localtime_r(&t, &tmValue)
        var buffer = [CChar](repeating: 0, count: 32)
        let n = strftime(&buffer, buffer.count, "%Y%m%d-%H%M%S", &tmValue)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
