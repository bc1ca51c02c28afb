import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP socket on plain system calls, for load tools that must spend as little as possible per byte read.
public struct RawSocket: Sendable {
    /// The file descriptor.
    public let fd: Int32

    /// Connects (blocking) to an IPv4 address or `localhost`, with `TCP_NODELAY`.
    public static func connect(host: String, port: Int) throws(RawSocketError) -> RawSocket {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .system("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
            _ = Glibc_close(fd)
            throw .badAddress(host)
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc_connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            _ = Glibc_close(fd)
            throw .system("connect", code)
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return RawSocket(fd: fd)
    }

    /// Writes every byte (blocking).
    public func writeAll(_ bytes: [UInt8]) throws(RawSocketError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc_write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system("write", errno)
            }
            offset += n
        }
    }

    /// Reads what is there (blocking until something is, unless non-blocking): the count, 0 at end of stream,
    /// -1 when a non-blocking socket has nothing.
    public func read(into buffer: inout [UInt8]) throws(RawSocketError) -> Int {
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc_read(fd, $0.baseAddress!, $0.count) }
            if n >= 0 { return n }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return -1 }
            throw .system("read", errno)
        }
    }

    /// Makes reads return -1 instead of waiting.
    public func setNonBlocking() {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// Makes a blocking read fail after `seconds` without data (`SO_RCVTIMEO`).
    public func setReceiveTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Closes the socket.
    public func close() {
        _ = Glibc_close(fd)
    }
}

/// Why a raw socket failed.
public enum RawSocketError: Error, CustomStringConvertible {
    case system(String, Int32)
    case badAddress(String)
    case closed

    public var description: String {
        switch self {
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        case .badAddress(let host): return "not an IPv4 address: \(host)"
        case .closed: return "the server closed the connection"
        }
    }
}

// The system calls by names that do not clash with RawSocket's methods.
@inline(__always) private func Glibc_close(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) private func Glibc_connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t)
    -> Int32
{
    connect(fd, address, length)
}
@inline(__always) private func Glibc_write(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}
@inline(__always) private func Glibc_read(_ fd: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, bytes, count)
}
