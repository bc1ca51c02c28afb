import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port where nothing listens and nothing will: a socket is bound to it but never listens, so
/// connections are refused, and the kernel cannot give the port to another test's server while the socket is open
/// (a port freed by stopping a listener can be, and then a client's retries land on that server).
public final class DeadPort: Sendable {
    public let port: Int
    private let fd: Int32

    public init() throws {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw Failure(description: "bind() failed: \(errno)")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `127.0.0.1:PORT`.
    public var address: String { "127.0.0.1:\(port)" }

    deinit { close(fd) }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }
}
