import NIOCore

/// Writes RESP2: commands (arrays of bulk strings, what a client sends) and any value (what a server sends, for
/// tests and tools).
public enum RESPEncoder {
    /// Appends `command` as an array of bulk strings.
    public static func encode(_ command: RedisCommand, into buffer: inout ByteBuffer) {
        writeHeader(UInt8(ascii: "*"), command.arguments.count, into: &buffer)
        for argument in command.arguments {
            switch argument {
            case .string(let text):
                writeHeader(UInt8(ascii: "$"), text.utf8.count, into: &buffer)
                buffer.writeString(text)
            case .bytes(let bytes):
                writeHeader(UInt8(ascii: "$"), bytes.readableBytes, into: &buffer)
                buffer.writeImmutableBuffer(bytes)
            case .integer(let value):
                let text = String(value)
                writeHeader(UInt8(ascii: "$"), text.utf8.count, into: &buffer)
                buffer.writeString(text)
            }
            buffer.writeStaticString("\r\n")
        }
    }

    /// Appends `value`. Simple strings and errors must not contain `\r` or `\n` (they are replaced by spaces).
    public static func encode(_ value: RESPValue, into buffer: inout ByteBuffer) {
        switch value {
        case .simpleString(let text):
            buffer.writeInteger(UInt8(ascii: "+"))
            buffer.writeString(singleLine(text))
            buffer.writeStaticString("\r\n")
        case .error(let message):
            buffer.writeInteger(UInt8(ascii: "-"))
            buffer.writeString(singleLine(message))
            buffer.writeStaticString("\r\n")
        case .integer(let number):
            buffer.writeInteger(UInt8(ascii: ":"))
            buffer.writeString(String(number))
            buffer.writeStaticString("\r\n")
        case .bulkString(nil):
            buffer.writeStaticString("$-1\r\n")
        case .bulkString(let bytes?):
            writeHeader(UInt8(ascii: "$"), bytes.readableBytes, into: &buffer)
            buffer.writeImmutableBuffer(bytes)
            buffer.writeStaticString("\r\n")
        case .array(nil):
            buffer.writeStaticString("*-1\r\n")
        case .array(let values?):
            writeHeader(UInt8(ascii: "*"), values.count, into: &buffer)
            for element in values { encode(element, into: &buffer) }
        }
    }

    private static func writeHeader(_ type: UInt8, _ count: Int, into buffer: inout ByteBuffer) {
        buffer.writeInteger(type)
        buffer.writeString(String(count))
        buffer.writeStaticString("\r\n")
    }

    private static func singleLine(_ text: String) -> String {
        guard text.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return text }
        return String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
    }
}
