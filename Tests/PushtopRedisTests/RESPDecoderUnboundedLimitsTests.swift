import NIOCore
import PushtopRedis
import Testing

/// Limits of `Int.max` ("no limit") with lengths near `Int.max`: the decoder's bounds checks must not overflow (a
/// trap that ends the process) where the default limits would have refused the length first.
@Suite struct RESPDecoderUnboundedLimitsTests {
    private let unbounded = RESPDecoder.Limits(
        maxBulkLength: .max, maxArrayLength: .max, maxDepth: 32, maxLineLength: .max)

    @Test func aLineIsReadUnderALineLimitOfIntMax() throws {
        var buffer = ByteBuffer(string: "+OK\r\n")
        #expect(try RESPDecoder(limits: unbounded).decode(&buffer) == .simpleString("OK"))
        #expect(buffer.readableBytes == 0)
    }

    @Test func anIncompleteLineUnderALineLimitOfIntMaxWaits() throws {
        var buffer = ByteBuffer(string: "+OK")
        #expect(try RESPDecoder(limits: unbounded).decode(&buffer) == nil)
        #expect(buffer.readableBytes == 3)
    }

    @Test func aBulkLengthOfIntMaxWaitsForItsBytes() throws {
        for length in [Int.max, Int.max - 1, Int.max - 2] {
            var buffer = ByteBuffer(string: "$\(length)\r\nabc")
            #expect(try RESPDecoder(limits: unbounded).decode(&buffer) == nil, "length \(length)")
            #expect(buffer.readableBytes == "$\(length)\r\nabc".utf8.count, "nothing consumed for \(length)")
        }
    }

    @Test func aBulkStringStillDecodesUnderUnboundedLimits() throws {
        var buffer = ByteBuffer(string: "$5\r\nhello\r\n$3\r\nab")
        let decoder = RESPDecoder(limits: unbounded)
        #expect(try decoder.decode(&buffer) == .bulkString("hello"))
        #expect(try decoder.decode(&buffer) == nil)
        buffer.writeString("c\r\n")
        #expect(try decoder.decode(&buffer) == .bulkString("abc"))
    }
}
