import NIOCore
import PushtopRedis
import Testing

@Suite struct RESPDecoderTests {
    @Test func decodesASimpleString() throws {
        var buffer = ByteBuffer(string: "+OK\r\n")
        #expect(try RESPDecoder().decode(&buffer) == .simpleString("OK"))
    }
}
