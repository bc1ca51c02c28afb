import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Appends recording lines to a file, flushed after every write so that a crash loses nothing written.
///
/// Thread-safe: the dashboard's loop and `watch`'s writer call it from wherever they run. `scrub` strings
/// (the app secret) are replaced in every line as a last guard, so a secret can never reach the file.
public final class RecordingWriter: Sendable {
    /// Why a recording could not be opened or written.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The recording's file.
        public var path: String
        /// What went wrong, e.g. the system's error message.
        public var reason: String
        public var description: String { "cannot record to \(path): \(reason)" }
    }

    /// The file recorded to.
    public let path: String
    private let file: Mutex<OpaquePointer?>
    private let scrub: [String]

    /// Opens (creates or truncates) `path` and writes the header.
    public init(path: String, header: RecordingHeader, scrub: [String] = []) throws(Failure) {
        guard let f = fopen(path, "w") else {
            throw Failure(path: path, reason: String(cString: strerror(errno)))
        }
        self.path = path
        self.file = Mutex(OpaquePointer(f))
        self.scrub = scrub.filter { $0.count >= 4 }
        try write([.header(header)])
    }

    /// Writes items as lines, then flushes.
    public func write(_ items: [RecordingItem]) throws(Failure) {
        guard !items.isEmpty else { return }
        var text = ""
        for item in items {
            var line = RecordingCodec.encode(item)
            for secret in scrub where line.contains(secret) {
                line = line.split(separator: secret, omittingEmptySubsequences: false).joined(
                    separator: Redaction.marker)
            }
            text += line
            text += "\n"
        }
        let error: Int32? = file.withLock { f in
            guard let f else { return EBADF }
            let fp = UnsafeMutablePointer<FILE>(f)
            let ok =
                text.utf8.withContiguousStorageIfAvailable { fwrite($0.baseAddress, 1, $0.count, fp) == $0.count }
                ?? Array(text.utf8).withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, fp) == $0.count }
            return ok && fflush(fp) == 0 ? nil : errno
        }
        if let error { throw Failure(path: path, reason: String(cString: strerror(error))) }
    }

    /// Records client events received at `time`.
    public func record(_ events: [ClientEvent], at time: Double) throws(Failure) {
        try write(events.map { .client(time: time, event: $0) })
    }

    /// Flushes and closes the file; later writes fail.
    public func close() {
        file.withLock { f in
            if let f { fclose(UnsafeMutablePointer<FILE>(f)) }
            f = nil
        }
    }

    deinit { close() }
}
