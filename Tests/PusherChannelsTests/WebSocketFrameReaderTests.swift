import NIOCore
import NIOWebSocket
import Testing

@testable import PusherChannels

/// The client's frame reader against NIO's frame encoder and decoder: the same frames from the same bytes however
/// the reads split them, and the same refusals (``WebSocketFrameReader``).
@Suite struct WebSocketFrameReaderTests {
    /// The wire bytes of `frames`, as NIO's encoder writes them.
    func wire(_ frames: [WebSocketFrame]) throws -> ByteBuffer {
        let channel = EmbeddedChannel(handler: WebSocketFrameEncoder())
        var out = ByteBuffer()
        for frame in frames {
            try channel.writeOutbound(frame)
            while var part = try channel.readOutbound(as: ByteBuffer.self) { out.writeBuffer(&part) }
        }
        _ = try channel.finish()
        return out
    }

    func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true, rsv1: Bool = false, masked: Bool = false)
        -> WebSocketFrame
    {
        WebSocketFrame(
            fin: fin, rsv1: rsv1, opcode: opcode, maskKey: masked ? .random() : nil, data: ByteBuffer(string: text))
    }

    /// Reads `bytes` split into pieces of `step` bytes; the frames read, as (fin, rsv1, opcode, text).
    func read(_ bytes: ByteBuffer, step: Int, maxFrameSize: Int = 1 << 20) throws(NIOWebSocketError)
        -> [(Bool, Bool, WebSocketOpcode, String)]
    {
        var reader = WebSocketFrameReader(maxFrameSize: maxFrameSize)
        var rest = bytes
        var frames: [(Bool, Bool, WebSocketOpcode, String)] = []
        while rest.readableBytes > 0 {
            reader.append(rest.readSlice(length: min(step, rest.readableBytes))!)
            while let frame = try reader.next() {
                frames.append((frame.fin, frame.rsv1, frame.opcode, String(buffer: frame.data)))
            }
        }
        return frames
    }

    @Test func framesComeOutWholeHoweverTheReadsSplitThem() throws {
        let long = String(repeating: "x", count: 300)
        let huge = String(repeating: "y", count: 70_000)
        let bytes = try wire([
            frame(.text, "{\"event\":\"a\"}"), frame(.text, long, fin: false), frame(.continuation, "end"),
            frame(.ping, "p"), frame(.text, huge, rsv1: true), frame(.text, "masked", masked: true),
            frame(.connectionClose, ""),
        ])
        for step in [1, 2, 3, 7, 100, 1 << 20] {
            let frames = try read(bytes, step: step)
            #expect(frames.map(\.3) == ["{\"event\":\"a\"}", long, "end", "p", huge, "masked", ""], "step \(step)")
            #expect(frames.map(\.2) == [.text, .text, .continuation, .ping, .text, .text, .connectionClose])
            #expect(frames.map(\.0) == [true, false, true, true, true, true, true])
            #expect(frames.map(\.1) == [false, false, false, false, true, false, false])
        }
    }

    @Test func refusesWhatNIOsDecoderRefuses() throws {
        #expect(throws: NIOWebSocketError.invalidFrameLength) {
            _ = try read(try wire([frame(.text, String(repeating: "z", count: 200))]), step: 4, maxFrameSize: 100)
        }
        #expect(throws: NIOWebSocketError.fragmentedControlFrame) {
            _ = try read(try wire([frame(.ping, "p", fin: false)]), step: 1)
        }
        #expect(throws: NIOWebSocketError.multiByteControlFrameLength) {
            _ = try read(try wire([frame(.ping, String(repeating: "p", count: 126))]), step: 1)
        }
        // Refused as soon as the length is read, before the payload arrives (as NIO's decoder does).
        var header = ByteBuffer(bytes: [0x81, 126, 0x10, 0x00])
        var reader = WebSocketFrameReader(maxFrameSize: 100)
        reader.append(header.readSlice(length: 4)!)
        #expect(throws: NIOWebSocketError.invalidFrameLength) { _ = try reader.next() }
    }
}
