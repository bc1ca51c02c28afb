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
    /// - Throws: `CompressNIOError.bufferOverflow` when the result would pass `maxSize`, others for corrupt data.
    package func inflate(_ compressed: ByteBuffer, maxSize: Int, allocator: ByteBufferAllocator) throws -> ByteBuffer {
        var input = compressed
        // The sender removed the deflate block's tail (RFC 7692 section 7.2.2); put it back.
        input.writeBytes([0x00, 0x00, 0xFF, 0xFF])
        let output = try input.decompressStream(with: decompressor, maxSize: maxSize, allocator: allocator)
        if noContextTakeover { try decompressor.reset() }
        return output
    }
}
