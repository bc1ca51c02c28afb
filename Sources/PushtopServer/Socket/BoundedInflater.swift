import CompressNIO
import NIOCore

/// Inflates one client message compressed with permessage-deflate (RFC 7692 section 7.2.2), never producing more
/// than the message size limit: a decompression bomb (a small frame that inflates to gigabytes) costs at most the
/// limit plus one byte of output before it is refused.
///
/// Clients agreed to `client_no_context_takeover` (see ``PerMessageDeflate``), so each message inflates on its
/// own, with a stream borrowed for that message from a pool shared by all connections.
package enum BoundedInflater {
    /// Why a message could not be inflated.
    package enum Failure: Error, Equatable {
        /// It inflates to more than the limit.
        case tooLarge
        /// It is not a valid deflate stream.
        case corrupt
    }

    /// An inflate stream (any client window up to 2^15) and its output window.
    final class Stream {
        let decompressor: ZlibDecompressor
        /// Receives each step's output, so each step is bounded exactly (a `ByteBuffer` rounds its capacity up).
        var window: ByteBuffer

        init?() {
            guard let decompressor = try? ZlibDecompressor(algorithm: .deflate, windowSize: 15) else { return nil }
            self.decompressor = decompressor
            window = ByteBuffer()
            window.reserveCapacity(16 * 1024)
        }
    }

    private static let streams = ZlibStreamPool<Stream> { Stream() }

    /// The inflated message, at most `maxBytes` long.
    package static func inflate(_ compressed: ByteBuffer, maxBytes: Int) -> Result<ByteBuffer, Failure> {
        guard let stream = streams.take() else { return .failure(.corrupt) }
        defer {
            if (try? stream.decompressor.reset()) != nil { streams.give(stream) }
        }
        var input = compressed
        // The sender removed the sync flush's tail (section 7.2.1); inflating needs it back.
        input.writeBytes([0x00, 0x00, 0xFF, 0xFF])
        var output = ByteBuffer()
        output.reserveCapacity(min(maxBytes, max(256, compressed.readableBytes * 4)))
        var remaining = maxBytes
        let capacity = stream.window.capacity
        while true {
            // Room for at most one byte past the limit: enough to know the message is too large.
            let room = min(capacity, remaining + 1)
            stream.window.clear()
            stream.window.moveWriterIndex(to: capacity - room)
            stream.window.moveReaderIndex(to: capacity - room)
            var full = false
            do {
                try stream.decompressor.inflate(from: &input, to: &stream.window)
            } catch let error as CompressNIOError where error == .bufferOverflow {
                full = true
            } catch let error as CompressNIOError where error == .inputBufferOverflow {
                // All the input was used.
            } catch {
                return .failure(.corrupt)
            }
            let produced = stream.window.readableBytes
            guard produced <= remaining else { return .failure(.tooLarge) }
            remaining -= produced
            output.writeBuffer(&stream.window)
            if !full { return .success(output) }
        }
    }
}
