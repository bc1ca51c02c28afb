/// The XSalsa20 stream cipher (Bernstein's Salsa20/20 with a 192-bit nonce), the cipher of NaCl's
/// `crypto_secretbox`.
///
/// HSalsa20 turns the key and the nonce's first 16 bytes into a subkey; Salsa20/20 with that subkey and the nonce's
/// last 8 bytes makes the keystream, block by block (64 bytes, a 64-bit little-endian block counter from 0).
///
/// The state lives in sixteen local `UInt32`s and every operation wraps (`&+`, rotations), so the optimiser keeps it
/// in registers; bytes are read and written through raw pointers a word at a time. Callers check sizes: the key is
/// 32 bytes, the nonce 24.
struct XSalsa20 {
    /// The Salsa20 key after HSalsa20 (eight little-endian words).
    private let k0, k1, k2, k3, k4, k5, k6, k7: UInt32
    /// The nonce's last 8 bytes (two little-endian words).
    private let n0, n1: UInt32

    /// "expand 32-byte k", the Salsa20 constants.
    private static let c0: UInt32 = 0x6170_7865
    private static let c1: UInt32 = 0x3320_646e
    private static let c2: UInt32 = 0x7962_2d32
    private static let c3: UInt32 = 0x6b20_6574

    /// A cipher for `key` (32 bytes) and `nonce` (24 bytes).
    init(key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer) {
        precondition(key.count == 32 && nonce.count == 24, "XSalsa20 takes a 32-byte key and a 24-byte nonce")
        let sub = Self.hsalsa20(key: key, input: nonce)
        (k0, k1, k2, k3, k4, k5, k6, k7) = sub
        n0 = Self.word(nonce, 16)
        n1 = Self.word(nonce, 20)
    }

    /// A little-endian word of `bytes` at `offset`.
    @inline(__always)
    static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always)
    private static func rotl(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value &<< count) | (value &>> (32 &- count))
    }

    /// HSalsa20: the subkey for `key` and the first 16 bytes of `input` (20 rounds, no feed-forward; the diagonal
    /// and the input words of the final state).
    static func hsalsa20(
        key: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer
    ) -> (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) {
        var x0 = c0, x5 = c1, x10 = c2, x15 = c3
        var x1 = word(key, 0), x2 = word(key, 4), x3 = word(key, 8), x4 = word(key, 12)
        var x11 = word(key, 16), x12 = word(key, 20), x13 = word(key, 24), x14 = word(key, 28)
        var x6 = word(input, 0), x7 = word(input, 4), x8 = word(input, 8), x9 = word(input, 12)
        for _ in 0..<10 {
            // Columns.
            x4 ^= rotl(x0 &+ x12, 7); x8 ^= rotl(x4 &+ x0, 9); x12 ^= rotl(x8 &+ x4, 13); x0 ^= rotl(x12 &+ x8, 18)
            x9 ^= rotl(x5 &+ x1, 7); x13 ^= rotl(x9 &+ x5, 9); x1 ^= rotl(x13 &+ x9, 13); x5 ^= rotl(x1 &+ x13, 18)
            x14 ^= rotl(x10 &+ x6, 7); x2 ^= rotl(x14 &+ x10, 9); x6 ^= rotl(x2 &+ x14, 13); x10 ^= rotl(x6 &+ x2, 18)
            x3 ^= rotl(x15 &+ x11, 7); x7 ^= rotl(x3 &+ x15, 9); x11 ^= rotl(x7 &+ x3, 13); x15 ^= rotl(x11 &+ x7, 18)
            // Rows.
            x1 ^= rotl(x0 &+ x3, 7); x2 ^= rotl(x1 &+ x0, 9); x3 ^= rotl(x2 &+ x1, 13); x0 ^= rotl(x3 &+ x2, 18)
            x6 ^= rotl(x5 &+ x4, 7); x7 ^= rotl(x6 &+ x5, 9); x4 ^= rotl(x7 &+ x6, 13); x5 ^= rotl(x4 &+ x7, 18)
            x11 ^= rotl(x10 &+ x9, 7); x8 ^= rotl(x11 &+ x10, 9); x9 ^= rotl(x8 &+ x11, 13); x10 ^= rotl(x9 &+ x8, 18)
            x12 ^= rotl(x15 &+ x14, 7); x13 ^= rotl(x12 &+ x15, 9); x14 ^= rotl(x13 &+ x12, 13)
            x15 ^= rotl(x14 &+ x13, 18)
        }
        return (x0, x5, x10, x15, x6, x7, x8, x9)
    }

    /// Writes keystream block `counter` (64 bytes) to `out`, little-endian.
    @inline(__always)
    private func block(_ counter: UInt64, into out: UnsafeMutableRawPointer) {
        let j0 = Self.c0, j1 = k0, j2 = k1, j3 = k2, j4 = k3, j5 = Self.c1, j6 = n0, j7 = n1
        let j8 = UInt32(truncatingIfNeeded: counter), j9 = UInt32(truncatingIfNeeded: counter &>> 32)
        let j10 = Self.c2, j11 = k4, j12 = k5, j13 = k6, j14 = k7, j15 = Self.c3
        var x0 = j0, x1 = j1, x2 = j2, x3 = j3, x4 = j4, x5 = j5, x6 = j6, x7 = j7
        var x8 = j8, x9 = j9, x10 = j10, x11 = j11, x12 = j12, x13 = j13, x14 = j14, x15 = j15
        for _ in 0..<10 {
            x4 ^= Self.rotl(x0 &+ x12, 7); x8 ^= Self.rotl(x4 &+ x0, 9)
            x12 ^= Self.rotl(x8 &+ x4, 13); x0 ^= Self.rotl(x12 &+ x8, 18)
            x9 ^= Self.rotl(x5 &+ x1, 7); x13 ^= Self.rotl(x9 &+ x5, 9)
            x1 ^= Self.rotl(x13 &+ x9, 13); x5 ^= Self.rotl(x1 &+ x13, 18)
            x14 ^= Self.rotl(x10 &+ x6, 7); x2 ^= Self.rotl(x14 &+ x10, 9)
            x6 ^= Self.rotl(x2 &+ x14, 13); x10 ^= Self.rotl(x6 &+ x2, 18)
            x3 ^= Self.rotl(x15 &+ x11, 7); x7 ^= Self.rotl(x3 &+ x15, 9)
            x11 ^= Self.rotl(x7 &+ x3, 13); x15 ^= Self.rotl(x11 &+ x7, 18)
            x1 ^= Self.rotl(x0 &+ x3, 7); x2 ^= Self.rotl(x1 &+ x0, 9)
            x3 ^= Self.rotl(x2 &+ x1, 13); x0 ^= Self.rotl(x3 &+ x2, 18)
            x6 ^= Self.rotl(x5 &+ x4, 7); x7 ^= Self.rotl(x6 &+ x5, 9)
            x4 ^= Self.rotl(x7 &+ x6, 13); x5 ^= Self.rotl(x4 &+ x7, 18)
            x11 ^= Self.rotl(x10 &+ x9, 7); x8 ^= Self.rotl(x11 &+ x10, 9)
            x9 ^= Self.rotl(x8 &+ x11, 13); x10 ^= Self.rotl(x9 &+ x8, 18)
            x12 ^= Self.rotl(x15 &+ x14, 7); x13 ^= Self.rotl(x12 &+ x15, 9)
            x14 ^= Self.rotl(x13 &+ x12, 13); x15 ^= Self.rotl(x14 &+ x13, 18)
        }
        out.storeBytes(of: (x0 &+ j0).littleEndian, toByteOffset: 0, as: UInt32.self)
        out.storeBytes(of: (x1 &+ j1).littleEndian, toByteOffset: 4, as: UInt32.self)
        out.storeBytes(of: (x2 &+ j2).littleEndian, toByteOffset: 8, as: UInt32.self)
        out.storeBytes(of: (x3 &+ j3).littleEndian, toByteOffset: 12, as: UInt32.self)
        out.storeBytes(of: (x4 &+ j4).littleEndian, toByteOffset: 16, as: UInt32.self)
        out.storeBytes(of: (x5 &+ j5).littleEndian, toByteOffset: 20, as: UInt32.self)
        out.storeBytes(of: (x6 &+ j6).littleEndian, toByteOffset: 24, as: UInt32.self)
        out.storeBytes(of: (x7 &+ j7).littleEndian, toByteOffset: 28, as: UInt32.self)
        out.storeBytes(of: (x8 &+ j8).littleEndian, toByteOffset: 32, as: UInt32.self)
        out.storeBytes(of: (x9 &+ j9).littleEndian, toByteOffset: 36, as: UInt32.self)
        out.storeBytes(of: (x10 &+ j10).littleEndian, toByteOffset: 40, as: UInt32.self)
        out.storeBytes(of: (x11 &+ j11).littleEndian, toByteOffset: 44, as: UInt32.self)
        out.storeBytes(of: (x12 &+ j12).littleEndian, toByteOffset: 48, as: UInt32.self)
        out.storeBytes(of: (x13 &+ j13).littleEndian, toByteOffset: 52, as: UInt32.self)
        out.storeBytes(of: (x14 &+ j14).littleEndian, toByteOffset: 56, as: UInt32.self)
        out.storeBytes(of: (x15 &+ j15).littleEndian, toByteOffset: 60, as: UInt32.self)
    }

    /// XORs `input` with the keystream from byte `offset` of the stream onwards into `output` (same length; the
    /// two may be the same memory). Returns nothing: the keystream is not kept.
    ///
    /// `offset` is what secretbox needs: its first 32 bytes are Poly1305's key, the message starts at byte 32.
    /// `firstBlock`, when given, is keystream block 0 already computed (by ``firstBlock(into:)``), used instead of
    /// computing it again.
    func xor(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, streamOffset offset: Int,
        firstBlock: UnsafeRawPointer? = nil
    ) {
        precondition(output.count >= input.count && offset >= 0)
        guard input.count > 0, let src = input.baseAddress, let dst = output.baseAddress else { return }
        // One 64-byte keystream block on the stack, as eight UInt64s.
        var stream: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &stream) { ks in
            let ksp = ks.baseAddress!
            var counter = UInt64(offset / 64)
            var skip = offset % 64
            var done = 0
            let total = input.count
            while done < total {
                if counter == 0, let firstBlock {
                    ksp.copyMemory(from: firstBlock, byteCount: 64)
                } else {
                    block(counter, into: ksp)
                }
                counter &+= 1
                let take = min(64 - skip, total - done)
                if skip == 0 && take == 64 {
                    // A whole block: eight 64-bit XORs.
                    var i = 0
                    while i < 64 {
                        let m = src.loadUnaligned(fromByteOffset: done + i, as: UInt64.self)
                        let k = ksp.load(fromByteOffset: i, as: UInt64.self)
                        dst.storeBytes(of: m ^ k, toByteOffset: done + i, as: UInt64.self)
                        i += 8
                    }
                } else {
                    for i in 0..<take {
                        let m = src.load(fromByteOffset: done + i, as: UInt8.self)
                        let k = ksp.load(fromByteOffset: skip + i, as: UInt8.self)
                        dst.storeBytes(of: m ^ k, toByteOffset: done + i, as: UInt8.self)
                    }
                }
                done += take
                skip = 0
            }
        }
    }

    /// Keystream block 0 (64 bytes) into `out`: secretbox's Poly1305 key is its first 32 bytes, and its last 32
    /// encrypt the message's first 32.
    func firstBlock(into out: UnsafeMutableRawPointer) {
        block(0, into: out)
    }
}
