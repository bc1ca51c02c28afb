#if os(Linux)
    import Glibc

    /// Linux's epoll, level-triggered, for readability only. Swift's Glibc module does not export the epoll API, so
    /// its three calls are looked up with `dlsym` (C calling convention, so the ABI is right).
    final class Epoll {
        private typealias Create = @convention(c) (Int32) -> Int32
        private typealias Control = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
        private typealias Wait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32

        private let fd: Int32
        private let control: Control
        private let waitCall: Wait
        /// `struct epoll_event` is packed on x86_64 (12 bytes: events, then 8 bytes of data), 16 bytes elsewhere.
        #if arch(x86_64)
            private static let eventSize = 12
        #else
            private static let eventSize = 16
        #endif
        private static let dataOffset = eventSize - 8
        private let capacity = 256
        private let events: UnsafeMutableRawPointer

        init() {
            let process = dlopen(nil, RTLD_NOW)
            func symbol<T>(_ name: String, as type: T.Type) -> T {
                guard let pointer = dlsym(process, name) else { fatalError("\(name) not found") }
                return unsafeBitCast(pointer, to: type)
            }
            fd = symbol("epoll_create1", as: Create.self)(0)
            control = symbol("epoll_ctl", as: Control.self)
            waitCall = symbol("epoll_wait", as: Wait.self)
            events = .allocate(byteCount: capacity * Self.eventSize, alignment: 8)
        }

        deinit {
            events.deallocate()
            _ = close(fd)
        }

        /// Watches `socket` for input; `wait` returns `token` when it is readable.
        func add(_ socket: Int32, token: UInt64) {
            let event = UnsafeMutableRawPointer.allocate(byteCount: Self.eventSize, alignment: 8)
            defer { event.deallocate() }
            event.storeBytes(of: UInt32(1), as: UInt32.self)  // EPOLLIN
            event.storeBytes(of: token, toByteOffset: Self.dataOffset, as: UInt64.self)
            _ = control(fd, 1, socket, event)  // EPOLL_CTL_ADD
        }

        /// The tokens of the readable sockets, waiting up to `milliseconds`.
        func wait(milliseconds: Int32) -> [UInt64] {
            let count = waitCall(fd, events, Int32(capacity), milliseconds)
            guard count > 0 else { return [] }
            return (0..<Int(count)).map {
                events.loadUnaligned(fromByteOffset: $0 * Self.eventSize + Self.dataOffset, as: UInt64.self)
            }
        }
    }
#endif
