#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Decodes Pusher frames straight from their UTF-8 bytes: the outer object is scanned in place, without a
/// `String` of the frame or a ``JSONValue`` tree.
///
/// Only the fields a message keeps become values: `event` and `channel` (names seen before are reused, so a
/// steady stream allocates nothing for them), `data` when it is a string (its text, unescaped, is the one
/// allocation per frame) and `user_id`. Unknown fields are checked and skipped. Anything unusual (escaped keys,
/// `data` as an object, mistyped fields, malformed JSON) goes to ``PusherMessage/init(decoding:)``, so results and
/// errors are exactly that initializer's.
///
/// One decoder per connection: it is a value with a small cache of names, used on one thread.
public struct PusherFrameDecoder: Sendable {
    /// Names longer than a small string (15 bytes), most recent first in no particular order.
    private var names: [String] = []
    private var nextSlot = 0
    private static let cacheSize = 16

    /// A decoder with an empty name cache.
    public init() {}

    /// Decodes one text frame from its bytes.
    ///
    /// The bytes should be valid UTF-8 (check with ``UTF8Validation/isValid(_:)``); invalid sequences decode as
    /// U+FFFD, as `String(decoding:as:)` would make them.
    /// - Throws: ``PusherMessageError``, the same error ``PusherMessage/init(decoding:)`` gives for the text.
    public mutating func decode(_ bytes: UnsafeRawBufferPointer) throws(PusherMessageError) -> PusherMessage {
        let buffer = bytes.assumingMemoryBound(to: UInt8.self)
        var scanner = FrameScanner(bytes: buffer)
        if let fields = scanner.scanFrame() {
            return PusherMessage(
                event: name(fields.event, in: scanner.lexer),
                channel: fields.channel.map { name($0, in: scanner.lexer) },
                data: fields.data.map { $0.string.map { .string(scanner.lexer.string($0)) } ?? .null },
                userID: fields.userID.map { scanner.lexer.string($0) })
        }
        return try PusherMessage(decoding: String(decoding: buffer, as: UTF8.self))
    }

    /// An event or channel name: small strings are built in place (no allocation), longer ones come from the cache
    /// when the bytes match a name seen before.
    private mutating func name(_ token: JSONLexer.StringToken, in lexer: JSONLexer) -> String {
        let count = token.end - token.start
        guard !token.escaped, count > 15 else { return lexer.string(token) }
        let start = lexer.bytes.baseAddress! + token.start
        for cached in names where cached.utf8.count == count {
            let same = cached.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, start, count) == 0 }
            if same == true { return cached }
        }
        let made = lexer.string(token)
        if names.count < Self.cacheSize {
            names.append(made)
        } else {
            names[nextSlot] = made
            nextSlot = (nextSlot + 1) % Self.cacheSize
        }
        return made
    }
}
