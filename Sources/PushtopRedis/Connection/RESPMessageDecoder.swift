import NIOCore

/// The RESP decoder as a NIO inbound stage: bytes in, one ``RESPValue`` per complete value out.
struct RESPMessageDecoder: ByteToMessageDecoder {
    typealias InboundOut = RESPValue

    let decoder: RESPDecoder

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let value = try decoder.decode(&buffer) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(value))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        try decode(context: context, buffer: &buffer)
    }
}
