import NIOCore

/// Decodes RESP2 values from bytes that arrive in pieces.
///
/// ``decode(_:)`` takes one whole value from the front of a buffer, or nothing when the value is not complete
/// yet (the buffer is left as it was: call again when more bytes arrived). Hostile input gets a
/// ``RESPDecodingError``, never a crash or an unbounded allocation: lengths, element counts, nesting and line
/// lengths have limits (``Limits``). Bulk strings are slices of the input buffer, not copies.
public struct RESPDecoder: Sendable {
    /// Bounds on what one value may claim, so that a broken or hostile peer cannot make the decoder allocate
    /// without bound or recurse deeply.
    public struct Limits: Sendable, Hashable {
        /// The longest bulk string, in bytes (Redis's own `proto-max-bulk-len` is 512 MiB).
        public var maxBulkLength: Int
        /// The most elements in one array.
        public var maxArrayLength: Int
        /// How deeply arrays may nest (a plain reply is depth 1; EXEC of HGETALLs is 3).
        public var maxDepth: Int
        /// The longest line (simple string, error, integer, length), in bytes.
        public var maxLineLength: Int

        /// Limits; the defaults suit a Pusher cluster's traffic with a wide margin.
        public init(
            maxBulkLength: Int = 64 << 20, maxArrayLength: Int = 1 << 20, maxDepth: Int = 32,
            maxLineLength: Int = 64 << 10
        ) {
            self.maxBulkLength = max(0, maxBulkLength)
            self.maxArrayLength = max(0, maxArrayLength)
            self.maxDepth = max(1, maxDepth)
            self.maxLineLength = max(1, maxLineLength)
        }
    }

    /// The limits this decoder enforces.
    public var limits: Limits

    /// A decoder with the given limits.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Takes one whole value from the front of `buffer`, moving its reader index past it; returns `nil`, leaving
    /// `buffer` untouched, when the value is not complete yet.
    ///
    /// - Throws: ``RESPDecodingError`` when the bytes are not RESP2 or break a limit.
    public func decode(_ buffer: inout ByteBuffer) throws(RESPDecodingError) -> RESPValue? {
        let snapshot = buffer
        let result: (RESPValue, Int)?
        do {
            result = try snapshot.withUnsafeReadableBytes { bytes in
                var parser = Parser(bytes: bytes, buffer: snapshot, limits: limits)
                return try parser.value(at: 0, depth: 1)
            }
        } catch let error as RESPDecodingError {
            throw error
        } catch {
            preconditionFailure("RESPDecoder.Parser throws only RESPDecodingError")
        }
        guard let (value, consumed) = result else { return nil }
        buffer.moveReaderIndex(forwardBy: consumed)
        return value
    }
}

extension RESPDecoder {
    /// The recursive descent over the readable bytes; offsets are relative to the reader index.
    private struct Parser {
        let bytes: UnsafeRawBufferPointer
        let buffer: ByteBuffer
        let limits: Limits

        private static let cr: UInt8 = 13
        private static let lf: UInt8 = 10

        init(bytes: UnsafeRawBufferPointer, buffer: ByteBuffer, limits: Limits) {
            self.bytes = bytes
            self.buffer = buffer
            self.limits = limits
        }

        /// The value starting at `offset` and the offset just past it, or `nil` when incomplete.
        mutating func value(at offset: Int, depth: Int) throws -> (RESPValue, Int)? {
            guard offset < bytes.count else { return nil }
            let type = bytes[offset]
            guard let (start, end, next) = try line(from: offset + 1) else { return nil }
            switch type {
            case UInt8(ascii: "+"):
                return (.simpleString(text(start, end)), next)
            case UInt8(ascii: "-"):
                return (.error(text(start, end)), next)
            case UInt8(ascii: ":"):
                return (.integer(try integer(start, end)), next)
            case UInt8(ascii: "$"):
                guard
                    let count = try length(
                        start, end, limit: limits.maxBulkLength, tooLong: RESPDecodingError.bulkTooLong)
                else { return (.bulkString(nil), next) }
                // Compared as a difference: `next + count + 2` overflows (a trap) for a count near Int.max, which
                // a limit of Int.max ("no limit") lets through.
                guard count <= bytes.count - next - 2 else { return nil }
                guard bytes[next + count] == Self.cr, bytes[next + count + 1] == Self.lf else {
                    throw RESPDecodingError.bulkNotTerminated
                }
                let slice = buffer.getSlice(at: buffer.readerIndex + next, length: count) ?? ByteBuffer()
                return (.bulkString(slice), next + count + 2)
            case UInt8(ascii: "*"):
                guard
                    let count = try length(
                        start, end, limit: limits.maxArrayLength, tooLong: RESPDecodingError.arrayTooLong)
                else { return (.array(nil), next) }
                guard depth < limits.maxDepth || count == 0 else {
                    throw RESPDecodingError.tooDeep(limit: limits.maxDepth)
                }
                var elements: [RESPValue] = []
                // Reserve only what the bytes present could hold (each element takes at least 3 bytes), so a
                // hostile count cannot allocate ahead of the data.
                elements.reserveCapacity(min(Int(count), (bytes.count - next) / 3 + 1))
                var position = next
                for _ in 0..<count {
                    guard let (element, after) = try value(at: position, depth: depth + 1) else { return nil }
                    elements.append(element)
                    position = after
                }
                return (.array(elements), position)
            default:
                throw RESPDecodingError.unknownType(byte: type)
            }
        }

        /// The line from `start` to its `\r\n`: its content's bounds and the offset after the `\n`, or `nil` when
        /// the `\r\n` has not arrived yet.
        private func line(from start: Int) throws -> (Int, Int, Int)? {
            // Where the `\r` may be at the latest; compared before adding, since `start + maxLineLength + 1`
            // overflows (a trap) for a limit of Int.max.
            let limit = bytes.count - start > limits.maxLineLength ? start + limits.maxLineLength + 1 : bytes.count
            var index = start
            while index < limit {
                if bytes[index] == Self.cr {
                    guard index + 1 < bytes.count else { return nil }
                    guard bytes[index + 1] == Self.lf else { throw RESPDecodingError.missingLineFeed }
                    return (start, index, index + 2)
                }
                index += 1
            }
            if bytes.count - start > limits.maxLineLength {
                throw RESPDecodingError.lineTooLong(limit: limits.maxLineLength)
            }
            return nil
        }

        private func text(_ start: Int, _ end: Int) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }

        /// A bulk string's or an array's length header: `nil` for -1 (RESP2's null), else 0 up to `limit`.
        private func length(_ start: Int, _ end: Int, limit: Int, tooLong: (Int64, Int) -> RESPDecodingError) throws
            -> Int?
        {
            let length = try integer(start, end)
            if length == -1 { return nil }
            guard length >= 0 else { throw RESPDecodingError.invalidLength(length) }
            guard length <= limit else { throw tooLong(length, limit) }
            return Int(length)
        }

        /// A signed decimal integer (no sign but '-', no spaces), checked for overflow.
        private func integer(_ start: Int, _ end: Int) throws -> Int64 {
            var index = start
            let negative = index < end && bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            guard index < end, end - index <= 19 else { throw RESPDecodingError.invalidInteger(text(start, end)) }
            var value: Int64 = 0
            while index < end {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { throw RESPDecodingError.invalidInteger(text(start, end)) }
                let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit))
                guard !overflow1, !overflow2 else { throw RESPDecodingError.invalidInteger(text(start, end)) }
                value = sum
                index += 1
            }
            return negative ? -value : value
        }
    }
}
