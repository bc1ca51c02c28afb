#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Small file helpers on the C library (the dashboard library does not import Foundation); the executable's config
/// readers use them too.
public enum TextFile {
    /// The whole file as UTF-8 text, or `nil` when it cannot be read.
    public static func read(_ path: String) -> String? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n > 0 { bytes.append(contentsOf: buffer[0..<n]) }
            if n < buffer.count { break }
        }
        if ferror(f) != 0 { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes text to a file (replacing it).
    /// - Returns: `nil` on success, else the reason.
    public static func write(_ text: String, to path: String) -> String? {
        guard let f = fopen(path, "wb") else { return String(cString: strerror(errno)) }
        var utf8 = Array(text.utf8)
        let n = utf8.isEmpty ? 0 : fwrite(&utf8, 1, utf8.count, f)
        let closed = fclose(f)
        if n != utf8.count || closed != 0 { return String(cString: strerror(errno)) }
        return nil
    }

    /// The names of the files in a folder ending with `suffix`, sorted; empty when the folder is missing.
    public static func list(folder: String, suffix: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { ptr in
                ptr.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasSuffix(suffix), !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }
}
