/// The Poly1305 one-time authenticator (Bernstein), as NaCl's `crypto_onetimeauth`: a 16-byte tag of a message
/// under a 32-byte key that must never be used twice (secretbox takes it from the cipher's keystream).
///
/// Arithmetic modulo 2¹³⁰ − 5 in five 26-bit limbs with 64-bit products (the "donna" 32-bit layout): every
/// operation is a fixed sequence of multiplies, adds and shifts, with no branch on secret data, and the final
/// reduction selects by mask.
struct Poly1305 {
    private let r0, r1, r2, r3, r4: UInt32
    private let s1, s2, s3, s4: UInt32
    private let pad0, pad1, pad2, pad3: UInt32
    private var h0: UInt32 = 0, h1: UInt32 = 0, h2: UInt32 = 0, h3: UInt32 = 0, h4: UInt32 = 0

    /// Tag length in bytes.
    static let tagSize = 16

    /// An authenticator for the 32-byte `key` (`r`, clamped, then the pad `s`).
    init(key: UnsafeRawBufferPointer) {
        precondition(key.count >= 32, "Poly1305 keys are 32 bytes")
        r0 = XSalsa20.word(key, 0) & 0x3ff_ffff
        r1 = (XSalsa20.word(key, 3) &>> 2) & 0x3ff_ff03
        r2 = (XSalsa20.word(key, 6) &>> 4) & 0x3ff_c0ff
        r3 = (XSalsa20.word(key, 9) &>> 6) & 0x3f0_3fff
        r4 = (XSalsa20.word(key, 12) &>> 8) & 0x00f_ffff
        s1 = r1 &* 5
        s2 = r2 &* 5
        s3 = r3 &* 5
        s4 = r4 &* 5
        pad0 = XSalsa20.word(key, 16)
        pad1 = XSalsa20.word(key, 20)
        pad2 = XSalsa20.word(key, 24)
        pad3 = XSalsa20.word(key, 28)
    }

    /// Absorbs one 16-byte block at `m`; `hibit` is 2¹²⁸ in limb 4 for full blocks, 0 for the padded last one.
    @inline(__always)
    private mutating func absorb(_ m: UnsafeRawPointer, hibit: UInt32) {
        let mask: UInt32 = 0x3ff_ffff
        let t0 = UInt32(littleEndian: m.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
        let t1 = UInt32(littleEndian: m.loadUnaligned(fromByteOffset: 3, as: UInt32.self))
        let t2 = UInt32(littleEndian: m.loadUnaligned(fromByteOffset: 6, as: UInt32.self))
        let t3 = UInt32(littleEndian: m.loadUnaligned(fromByteOffset: 9, as: UInt32.self))
        let t4 = UInt32(littleEndian: m.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        let a0 = UInt64(h0 &+ (t0 & mask))
        let a1 = UInt64(h1 &+ ((t1 &>> 2) & mask))
        let a2 = UInt64(h2 &+ ((t2 &>> 4) & mask))
        let a3 = UInt64(h3 &+ ((t3 &>> 6) & mask))
        let a4 = UInt64(h4 &+ ((t4 &>> 8) | hibit))
        let b0 = UInt64(r0), b1 = UInt64(r1), b2 = UInt64(r2), b3 = UInt64(r3), b4 = UInt64(r4)
        let t1s = UInt64(s1), t2s = UInt64(s2), t3s = UInt64(s3), t4s = UInt64(s4)
        let d0 = a0 &* b0 &+ a1 &* t4s &+ a2 &* t3s &+ a3 &* t2s &+ a4 &* t1s
        let d1 = a0 &* b1 &+ a1 &* b0 &+ a2 &* t4s &+ a3 &* t3s &+ a4 &* t2s
        let d2 = a0 &* b2 &+ a1 &* b1 &+ a2 &* b0 &+ a3 &* t4s &+ a4 &* t3s
        let d3 = a0 &* b3 &+ a1 &* b2 &+ a2 &* b1 &+ a3 &* b0 &+ a4 &* t4s
        let d4 = a0 &* b4 &+ a1 &* b3 &+ a2 &* b2 &+ a3 &* b1 &+ a4 &* b0
        var c: UInt64 = 0
        var n0 = Self.carry(d0, &c)
        var n1 = Self.carry(d1, &c)
        let n2 = Self.carry(d2, &c)
        let n3 = Self.carry(d3, &c)
        let n4 = Self.carry(d4, &c)
        n0 &+= UInt32(truncatingIfNeeded: c) &* 5
        let c32 = n0 &>> 26
        n0 &= mask
        n1 &+= c32
        (h0, h1, h2, h3, h4) = (n0, n1, n2, n3, n4)
    }

    /// One step of the carry chain: the 64-bit limb `d` plus the carry `c` in from the limb below; leaves the bits
    /// above 26 in `c` for the limb above and returns the low 26.
    @inline(__always)
    private static func carry(_ d: UInt64, _ c: inout UInt64) -> UInt32 {
        let sum = d &+ c
        c = sum &>> 26
        return UInt32(truncatingIfNeeded: sum & 0x3ff_ffff)
    }

    /// Absorbs a whole message (every call but the last must be a multiple of 16 bytes long; secretbox makes one
    /// call).
    mutating func update(_ message: UnsafeRawBufferPointer) {
        guard let base = message.baseAddress else { return }
        var offset = 0
        let count = message.count
        while count - offset >= 16 {
            absorb(base + offset, hibit: 1 << 24)
            offset += 16
        }
        let rest = count - offset
        if rest > 0 {
            var last: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &last) { buffer in
                buffer.baseAddress!.copyMemory(from: base + offset, byteCount: rest)
                buffer[rest] = 1
                absorb(UnsafeRawPointer(buffer.baseAddress!), hibit: 0)
            }
        }
    }

    /// The tag: `h` fully reduced modulo 2¹³⁰ − 5, plus the pad, modulo 2¹²⁸, written little-endian to `out`.
    func finish(into out: UnsafeMutableRawPointer) {
        let mask: UInt32 = 0x3ff_ffff
        var h0 = self.h0, h1 = self.h1, h2 = self.h2, h3 = self.h3, h4 = self.h4
        var c = h1 &>> 26
        h1 &= mask
        h2 &+= c
        c = h2 &>> 26
        h2 &= mask
        h3 &+= c
        c = h3 &>> 26
        h3 &= mask
        h4 &+= c
        c = h4 &>> 26
        h4 &= mask
        h0 &+= c &* 5
        c = h0 &>> 26
        h0 &= mask
        h1 &+= c

        // g = h + 5 − 2¹³⁰; keep g when it did not go negative (h ≥ p), else h.
        var g0 = h0 &+ 5
        c = g0 &>> 26
        g0 &= mask
        var g1 = h1 &+ c
        c = g1 &>> 26
        g1 &= mask
        var g2 = h2 &+ c
        c = g2 &>> 26
        g2 &= mask
        var g3 = h3 &+ c
        c = g3 &>> 26
        g3 &= mask
        var g4 = h4 &+ c &- (1 << 26)
        var select = (g4 &>> 31) &- 1  // all ones when g4 is non-negative
        g0 &= select
        g1 &= select
        g2 &= select
        g3 &= select
        g4 &= select
        select = ~select
        h0 = (h0 & select) | g0
        h1 = (h1 & select) | g1
        h2 = (h2 & select) | g2
        h3 = (h3 & select) | g3
        h4 = (h4 & select) | g4

        // To four 32-bit words, then + pad.
        let w0 = h0 | (h1 &<< 26)
        let w1 = (h1 &>> 6) | (h2 &<< 20)
        let w2 = (h2 &>> 12) | (h3 &<< 14)
        let w3 = (h3 &>> 18) | (h4 &<< 8)
        var f = UInt64(w0) &+ UInt64(pad0)
        out.storeBytes(of: UInt32(truncatingIfNeeded: f).littleEndian, toByteOffset: 0, as: UInt32.self)
        f = UInt64(w1) &+ UInt64(pad1) &+ (f &>> 32)
        out.storeBytes(of: UInt32(truncatingIfNeeded: f).littleEndian, toByteOffset: 4, as: UInt32.self)
        f = UInt64(w2) &+ UInt64(pad2) &+ (f &>> 32)
        out.storeBytes(of: UInt32(truncatingIfNeeded: f).littleEndian, toByteOffset: 8, as: UInt32.self)
        f = UInt64(w3) &+ UInt64(pad3) &+ (f &>> 32)
        out.storeBytes(of: UInt32(truncatingIfNeeded: f).littleEndian, toByteOffset: 12, as: UInt32.self)
    }

    /// Whether two 16-byte tags are equal, in time that does not depend on where they differ.
    ///
    /// Never inlined: inlined into ``SecretBox``'s `open`, where the answer feeds a branch, the optimiser turned the
    /// folded difference back into two 8-byte comparisons with a jump after the first (an early exit when the first
    /// half differs). A call of its own returns the bit without a branch (checked in the `-O` assembly).
    @inline(never)
    static func tagsEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer) -> Bool {
        let a0 = a.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        let a1 = a.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let b0 = b.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        let b1 = b.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let difference = (a0 ^ b0) | (a1 ^ b1)
        // Fold to one bit without a data-dependent branch before the single final comparison.
        return (difference | (0 &- difference)) &>> 63 == 0
    }
}
