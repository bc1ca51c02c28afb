#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Zeroes key material (a keystream block, Poly1305's one-time key) once it is no longer needed.
///
/// Two reasons for a function of its own rather than `initializeMemory(as:repeating:)` in place:
/// - the C library's `explicit_bzero` (`memset_s` on Apple platforms) is a store the optimiser may not drop as
///   dead, which a plain fill of a stack buffer about to go out of scope is;
/// - a plain fill at the end of a closure compiles, in release, to a tail call into `memset` that skips restoring
///   the Swift error register (r12 on x86-64, x21 on arm64) when the enclosing function carries one: the caller
///   then sees a phantom thrown error (swiftlang/swift#90477, fixed in LLVM by "Disable tail mem libcalls in
///   swifterror functions"; Swift 6.3.1 still has it). This is how `SecretBox.seal` threw garbage in release
///   builds (the demo's empty ciphertexts, `conform`'s crash). An ordinary call, as this one is (`@inline(never)`),
///   is never made a tail call from such a function; `scripts/check-swifterror-tailcalls` checks the release binary.
enum SecretWipe {
    @inline(never)
    static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        #if canImport(Darwin)
            _ = memset_s(base, buffer.count, 0, buffer.count)
        #else
            explicit_bzero(base, buffer.count)
        #endif
    }
}
