import NIOCore
import PushtopRedis
import Testing

/// The decoder on partial, pipelined and hostile input (unit tests: no server).
@Suite struct RESPDecoderTests {
    private func decodeAll(_ text: String, limits: RESPDecoder.Limits = .init()) throws -> [RESPValue] {
        var buffer = ByteBuffer(string: text)
        var values: [RESPValue] = []
        while let value = try RESPDecoder(limits: limits).decode(&buffer) { values.append(value) }
        #expect(buffer.readableBytes == 0, "bytes left over")
        return values
    }

    private func decodingError(_ text: String, limits: RESPDecoder.Limits = .init()) -> RESPDecodingError? {
        var buffer = ByteBuffer(string: text)
        do {
            _ = try RESPDecoder(limits: limits).decode(&buffer)
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesEveryType() throws {
        let values = try decodeAll("+OK\r\n-ERR wrong\r\n:-42\r\n$5\r\nhello\r\n$0\r\n\r\n$-1\r\n*-1\r\n*0\r\n")
        #expect(
            values == [
                .simpleString("OK"), .error("ERR wrong"), .integer(-42), .bulkString("hello"), .bulkString(""), .null,
                .array(nil), .array([]),
            ])
    }

    @Test func decodesNestedArraysLikeExecOfHgetall() throws {
        let values = try decodeAll("*2\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n:7\r\n")
        #expect(values == [.array([.array([.bulkString("a"), .bulkString("1")]), .integer(7)])])
    }

    @Test func bulkStringsAreBinarySafe() throws {
        var bytes: [UInt8] = Array("$260\r\n".utf8)
        let payload = (0..<256).map { UInt8($0) } + Array("\r\n\r\n".utf8)
        bytes += payload + Array("\r\n".utf8)
        var buffer = ByteBuffer(bytes: bytes)
        let value = try RESPDecoder().decode(&buffer)
        #expect(value == .bulkString(ByteBuffer(bytes: payload)))
    }

    @Test func partialInputWaitsAndConsumesNothing() throws {
        let text = "*3\r\n$7\r\nmessage\r\n$4\r\nchan\r\n$11\r\nhello world\r\n+NEXT\r\n"
        let whole = Array(text.utf8)
        // Every split point: the first part gives nothing (or only whole values), the rest completes them.
        for split in 1..<(whole.count - 9) {
            var buffer = ByteBuffer(bytes: whole[..<split])
            let decoder = RESPDecoder()
            let before = buffer.readableBytes
            #expect(try decoder.decode(&buffer) == nil, "split at \(split)")
            #expect(buffer.readableBytes == before, "nothing consumed at split \(split)")
            buffer.writeBytes(whole[split...])
            let first = try decoder.decode(&buffer)
            #expect(first?.array?.count == 3)
            #expect(try decoder.decode(&buffer) == .simpleString("NEXT"))
        }
    }

    @Test func byteByByteFeedGivesTheSameValues() throws {
        let text = ":1\r\n$3\r\nfoo\r\n*2\r\n+a\r\n$-1\r\n-ERR x\r\n"
        var buffer = ByteBuffer()
        var values: [RESPValue] = []
        for byte in text.utf8 {
            buffer.writeInteger(byte)
            while let value = try RESPDecoder().decode(&buffer) { values.append(value) }
        }
        #expect(values == [.integer(1), .bulkString("foo"), .array([.simpleString("a"), .null]), .error("ERR x")])
    }

    @Test func hostileInputGetsClearErrors() {
        #expect(decodingError("?what\r\n") == .unknownType(byte: UInt8(ascii: "?")))
        #expect(decodingError("\u{0}\r\n")?.description == "invalid RESP: unknown type byte 0x0")
        #expect(decodingError(":12a\r\n") == .invalidInteger("12a"))
        #expect(decodingError(":\r\n") == .invalidInteger(""))
        #expect(decodingError(":99999999999999999999\r\n") == .invalidInteger("99999999999999999999"))
        #expect(decodingError("$-2\r\n") == .invalidLength(-2))
        #expect(decodingError("*-5\r\n") == .invalidLength(-5))
        #expect(decodingError("+OK\rX") == .missingLineFeed)
        #expect(decodingError("$3\r\nfooXY") == .bulkNotTerminated)
    }

    @Test func limitsStopHugeClaimsBeforeAnyAllocation() {
        let limits = RESPDecoder.Limits(maxBulkLength: 1024, maxArrayLength: 100, maxDepth: 4, maxLineLength: 64)
        #expect(
            decodingError("$9223372036854775807\r\n", limits: limits)
                == .bulkTooLong(length: 9_223_372_036_854_775_807, limit: 1024))
        #expect(decodingError("*2147483648\r\n", limits: limits) == .arrayTooLong(count: 2_147_483_648, limit: 100))
        #expect(decodingError("*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", limits: limits) == .tooDeep(limit: 4))
        #expect(decodingError("+" + String(repeating: "x", count: 100), limits: limits) == .lineTooLong(limit: 64))
        // Default limits: a claimed million-element array with no data is not allocated for, just awaited.
        var buffer = ByteBuffer(string: "*1000000\r\n")
        #expect((try? RESPDecoder().decode(&buffer)) == .some(nil))
    }

    @Test func deeplyNestedInputDoesNotOverflowTheStack() {
        let text = String(repeating: "*1\r\n", count: 100_000) + ":1\r\n"
        #expect(decodingError(text) == .tooDeep(limit: 32))
    }

    @Test func encoderOutputDecodesToTheSameValue() throws {
        let values: [RESPValue] = [
            .simpleString("PONG"), .error("ERR no"), .integer(Int64.max), .integer(-1), .bulkString("é\r\n\u{0}"),
            .null,
            .array(nil), .array([.bulkString("a"), .array([.integer(1), .null])]),
        ]
        var buffer = ByteBuffer()
        for value in values { RESPEncoder.encode(value, into: &buffer) }
        var decoded: [RESPValue] = []
        while let value = try RESPDecoder().decode(&buffer) { decoded.append(value) }
        #expect(decoded == values)
    }

    @Test func commandsEncodeAsArraysOfBulkStrings() {
        var buffer = ByteBuffer()
        RESPEncoder.encode(RedisCommand("SET", "k", .bytes(ByteBuffer(bytes: [0, 13, 10])), "PX", 250), into: &buffer)
        #expect(String(buffer: buffer) == "*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\n\u{0}\r\n\r\n$2\r\nPX\r\n$3\r\n250\r\n")
    }

    @Test func commandDescriptionsNeverShowPasswords() {
        #expect(RedisCommand("AUTH", "user", "s3cret").description == "AUTH <redacted>")
        #expect(RedisCommand("set", "k", .bytes(ByteBuffer(string: "value"))).description == "SET k <5 bytes>")
    }
}
