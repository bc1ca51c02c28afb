import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Unbuffered writes to stdout and stderr: each call reaches the file descriptor before it returns.
enum StandardStreams {
    static func writeOut(_ text: String) {
        write(fd: 1, text)
    }

    static func writeErr(_ text: String) {
        write(fd: 2, text)
    }

    /// Writes bytes to stdout (`watch` builds its lines as bytes).
    static func writeOut(_ bytes: UnsafeRawBufferPointer) {
        write(fd: 1, bytes)
    }

    private static func write(fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { write(fd: fd, UnsafeRawBufferPointer($0)) }
    }

    private static func write(fd: Int32, _ buffer: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < buffer.count {
            let n = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
    }

    /// Lines of standard input, read on their own thread; the stream ends at end of input.
    static func inputLines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let thread = Thread {
            while let line = readLine(strippingNewline: true) {
                continuation.yield(line)
            }
            continuation.finish()
        }
        thread.start()
        return stream
    }
}
