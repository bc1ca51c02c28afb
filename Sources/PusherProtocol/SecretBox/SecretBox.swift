/// NaCl's `crypto_secretbox` (XSalsa20-Poly1305) in Swift: the authenticated encryption of Pusher's
/// `private-encrypted-` channels, byte for byte what libsodium's `crypto_secretbox_easy` and
/// `crypto_secretbox_open_easy` produce and accept, without a system library.
///
/// A box is the 16-byte Poly1305 tag followed by the ciphertext (as long as the message). The tag's key is the
/// first 32 bytes of the XSalsa20 keystream; the message is XORed with the keystream from byte 32 on. `open`
/// checks the tag (in constant time) before it decrypts anything.
///
/// - Important: a nonce must never be used twice with one key; ``randomNonce()`` draws 24 bytes from the system's
///   secure generator, which makes a repeat negligible.
public enum SecretBox {
    /// Key length in bytes (`crypto_secretbox_KEYBYTES`).
    public static let keySize = 32
    /// Nonce length in bytes (`crypto_secretbox_NONCEBYTES`).
    public static let nonceSize = 24
    /// Tag length in bytes, the box's overhead (`crypto_secretbox_MACBYTES`).
    public static let macSize = 16

    /// Why a box could not be sealed or opened.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The key is not ``SecretBox/keySize`` bytes.
        case badKey(size: Int)
        /// The nonce is not ``SecretBox/nonceSize`` bytes.
        case badNonce(size: Int)
        /// The box is shorter than its tag.
        case truncated(size: Int)
        /// The tag does not match: wrong key or nonce, or the box was altered.
        case authenticationFailed

        public var description: String {
            switch self {
            case .badKey(let size): return "secretbox key is \(size) bytes, expected \(SecretBox.keySize)"
            case .badNonce(let size): return "secretbox nonce is \(size) bytes, expected \(SecretBox.nonceSize)"
            case .truncated(let size):
                return "secretbox is \(size) bytes, shorter than its \(SecretBox.macSize)-byte tag"
            case .authenticationFailed: return "ciphertext failed authentication (wrong key or tampered data)"
            }
        }
    }

    /// Encrypts and authenticates `message`: the tag, then the ciphertext (`message.count + 16` bytes).
    public static func seal(_ message: [UInt8], nonce: [UInt8], key: [UInt8]) throws(Failure) -> [UInt8] {
        guard key.count == keySize else { throw .badKey(size: key.count) }
        guard nonce.count == nonceSize else { throw .badNonce(size: nonce.count) }
        return [UInt8](unsafeUninitializedCapacity: message.count + macSize) { box, initialized in
            let out = UnsafeMutableRawBufferPointer(box)
            key.withUnsafeBytes { key in
                nonce.withUnsafeBytes { nonce in
                    message.withUnsafeBytes { message in
                        seal(message, nonce: nonce, key: key, into: out)
                    }
                }
            }
            initialized = message.count + macSize
        }
    }

    /// Checks the tag of `box` (tag, then ciphertext) and decrypts it.
    public static func open(_ box: [UInt8], nonce: [UInt8], key: [UInt8]) throws(Failure) -> [UInt8] {
        guard key.count == keySize else { throw .badKey(size: key.count) }
        guard nonce.count == nonceSize else { throw .badNonce(size: nonce.count) }
        guard box.count >= macSize else { throw .truncated(size: box.count) }
        var authentic = false
        let message = [UInt8](unsafeUninitializedCapacity: box.count - macSize) { out, initialized in
            key.withUnsafeBytes { key in
                nonce.withUnsafeBytes { nonce in
                    box.withUnsafeBytes { box in
                        authentic = open(box, nonce: nonce, key: key, into: UnsafeMutableRawBufferPointer(out))
                    }
                }
            }
            // Never hand back unauthenticated plaintext: nothing is decrypted unless the tag matched, and the
            // buffer is zeroed otherwise so the array is fully initialised either way.
            if !authentic { UnsafeMutableRawBufferPointer(out).initializeMemory(as: UInt8.self, repeating: 0) }
            initialized = out.count
        }
        guard authentic else { throw .authenticationFailed }
        return message
    }

    /// 24 bytes from the system's cryptographically secure generator (`SystemRandomNumberGenerator`: `getrandom`
    /// on Linux, `arc4random_buf` on Apple platforms).
    public static func randomNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var words: (UInt64, UInt64, UInt64) = (generator.next(), generator.next(), generator.next())
        return withUnsafeBytes(of: &words) { Array($0) }
    }

    /// Seals `message` into `out` (`message.count + 16` bytes; may not overlap the message). Sizes are the
    /// caller's to check.
    static func seal(
        _ message: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
        into out: UnsafeMutableRawBufferPointer
    ) {
        let cipher = XSalsa20(key: key, nonce: nonce)
        withFirstBlock(of: cipher) { first in
            let body = UnsafeMutableRawBufferPointer(rebasing: out[macSize...])
            cipher.xor(message, into: body, streamOffset: 32, firstBlock: first)
            var mac = Poly1305(key: UnsafeRawBufferPointer(start: first, count: 32))
            mac.update(UnsafeRawBufferPointer(body))
            mac.finish(into: out.baseAddress!)
        }
    }

    /// Checks the tag of `box` and, only when it matches, decrypts into `out` (`box.count - 16` bytes). Returns
    /// whether the box was authentic.
    static func open(
        _ box: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
        into out: UnsafeMutableRawBufferPointer
    ) -> Bool {
        let cipher = XSalsa20(key: key, nonce: nonce)
        return withFirstBlock(of: cipher) { first in
            let body = UnsafeRawBufferPointer(rebasing: box[macSize...])
            var mac = Poly1305(key: UnsafeRawBufferPointer(start: first, count: 32))
            mac.update(body)
            var tag: (UInt64, UInt64) = (0, 0)
            let authentic = withUnsafeMutableBytes(of: &tag) { tag in
                mac.finish(into: tag.baseAddress!)
                return Poly1305.tagsEqual(UnsafeRawPointer(tag.baseAddress!), box.baseAddress!)
            }
            guard authentic else { return false }
            cipher.xor(body, into: out, streamOffset: 32, firstBlock: first)
            return true
        }
    }

    /// Runs `body` with keystream block 0 on the stack (Poly1305's key, then the keystream of the message's first
    /// 32 bytes), and wipes it afterwards (through `SecretWipe`, never an inline fill: see there why).
    private static func withFirstBlock<R>(of cipher: XSalsa20, _ body: (UnsafeRawPointer) -> R) -> R {
        var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &block) { block in
            cipher.firstBlock(into: block.baseAddress!)
            defer { SecretWipe.zero(block) }
            return body(UnsafeRawPointer(block.baseAddress!))
        }
    }
}
