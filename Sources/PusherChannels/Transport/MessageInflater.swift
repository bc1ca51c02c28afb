import CompressNIO
import Foundation
import NIOCore
import NIOHTTP1

/// permessage-deflate (RFC 7692) for received messages, with compress-nio's zlib stream.
///
/// The client offers the extension and inflates what the server compressed; it sends its own (small) frames
/// uncompressed, which the RFC allows message by message.
package final class MessageInflater {
    /// The `Sec-WebSocket-Extensions` offer sent with the upgrade request.
    package static let offer = "permessage-deflate; client_max_window_bits"

    private let decompressor: ZlibDecompressor
    private let noContextTakeover: Bool
    /// The last message and its deflate tail.
    private var input = ByteBuffer()
    /// The last message inflated.
    private var output = ByteBuffer()

    private init(windowBits: Int32, noContextTakeover: Bool) throws {
        self.decompressor = try ZlibDecompressor(algorithm: .deflate, windowSize: windowBits)
        self.noContextTakeover = noContextTakeover
    }

    /// The inflater the server's upgrade response agreed to, or `nil` when it did not accept the extension.
    package static func negotiated(by response: HTTPResponseHead) throws -> MessageInflater? {
        for value in response.headers[canonicalForm: "sec-websocket-extensions"] {
            let parameters = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parameters.first?.lowercased() == "permessage-deflate" else { continue }
            var windowBits: Int32 = 15
            var noContextTakeover = false
            for parameter in parameters.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                switch pair[0].lowercased() {
                case "server_max_window_bits":
                    if pair.count == 2, let bits = Int32(pair[1].trimmingCharacters(in: ["\""])),
                        (8...15).contains(bits)
                    {
                        windowBits = bits
                    }
                case "server_no_context_takeover":
                    noContextTakeover = true
                default:
                    break
                }
            }
            return try MessageInflater(windowBits: windowBits, noContextTakeover: noContextTakeover)
        }
        return nil
    }

    /// Inflates one whole compressed message.
    ///
    /// The message and its tail are copied into a buffer kept between messages, and the result is written into
    /// another (handed out, and reused once the caller has let go of it): a message allocates nothing once both have
    /// grown to the stream's message size. (Appending the tail to the frame's own bytes copied the read buffer they
    /// share, and compress-nio's allocating inflate made an output buffer, and an array of them, per message.)
    /// - Throws: `CompressNIOError.bufferOverflow` when the result would pass `maxSize`, others for corrupt data.
    package func inflate(_ compressed: ByteBuffer, maxSize: Int, allocator: ByteBufferAllocator) throws -> ByteBuffer {
        input.clear(minimumCapacity: compressed.readableBytes + 4)
        input.writeImmutableBuffer(compressed)
        // The sender removed the deflate block's tail (RFC 7692 section 7.2.2); put it back.
        input.writeInteger(UInt32(0x0000_FFFF))
        output.clear(minimumCapacity: min(maxSize, max(256, 2 * input.readableBytes)))
        while true {
            do {
                // Returns once the input is used up, or at the end of a final block.
                try decompressor.inflate(from: &input, to: &output)
                break
            } catch let error as CompressNIOError where error == .bufferOverflow {
                guard output.readableBytes < maxSize else { throw error }
                let more = min(maxSize - output.readableBytes, max(256, output.readableBytes))
                output.reserveCapacity(minimumWritableBytes: more)
            } catch let error as CompressNIOError where error == .inputBufferOverflow {
                break  // zlib took everything it needs
            }
        }
        // The buffer's capacity is rounded up: the limit is the message's, not the buffer's.
        guard output.readableBytes <= maxSize else { throw CompressNIOError.bufferOverflow }
        if noContextTakeover { try decompressor.reset() }
        return output
    }
}
