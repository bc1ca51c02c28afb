import SecretBoxAgreement
import Testing

@testable import PusherProtocol

/// The Swift secretbox on published vectors: NaCl's `crypto_secretbox` test (tests/secretbox.c in the NaCl
/// distribution, test/default/secretbox.c in libsodium) and its empty-message case, the 16-byte tag before the
/// ciphertext as `crypto_secretbox_easy` lays it out.
@Suite struct SecretBoxVectorTests {
    static let key = NaClSecretBoxVector.key
    static let nonce = NaClSecretBoxVector.nonce
    static let message = NaClSecretBoxVector.message
    static let box = NaClSecretBoxVector.box

    @Test func sealsNaClVector() throws {
        #expect(try SecretBox.seal(Self.message, nonce: Self.nonce, key: Self.key) == Self.box)
    }

    @Test func opensNaClVector() throws {
        #expect(try SecretBox.open(Self.box, nonce: Self.nonce, key: Self.key) == Self.message)
    }

    /// libsodium's secretbox test seals the empty message too: a box that is only the tag.
    @Test func emptyMessageIsItsTag() throws {
        let tag = NaClSecretBoxVector.emptyMessageTag
        #expect(try SecretBox.seal([], nonce: Self.nonce, key: Self.key) == tag)
        #expect(try SecretBox.open(tag, nonce: Self.nonce, key: Self.key) == [])
    }

    @Test func everyFlippedBitIsRefused() {
        for index in Self.box.indices {
            for bit in 0..<8 {
                var tampered = Self.box
                tampered[index] ^= 1 << bit
                #expect(throws: SecretBox.Failure.authenticationFailed) {
                    try SecretBox.open(tampered, nonce: Self.nonce, key: Self.key)
                }
            }
        }
    }

    @Test func wrongKeyNonceOrLengthIsRefused() {
        var otherKey = Self.key
        otherKey[31] ^= 0x80
        #expect(throws: SecretBox.Failure.authenticationFailed) {
            try SecretBox.open(Self.box, nonce: Self.nonce, key: otherKey)
        }
        var otherNonce = Self.nonce
        otherNonce[23] ^= 1
        #expect(throws: SecretBox.Failure.authenticationFailed) {
            try SecretBox.open(Self.box, nonce: otherNonce, key: Self.key)
        }
        #expect(throws: SecretBox.Failure.authenticationFailed) {
            try SecretBox.open(Array(Self.box.dropLast()), nonce: Self.nonce, key: Self.key)
        }
        #expect(throws: SecretBox.Failure.authenticationFailed) {
            try SecretBox.open(Self.box + [0], nonce: Self.nonce, key: Self.key)
        }
    }

    @Test func sizesAreChecked() {
        #expect(throws: SecretBox.Failure.badKey(size: 31)) {
            try SecretBox.seal([1], nonce: Self.nonce, key: Array(Self.key.prefix(31)))
        }
        #expect(throws: SecretBox.Failure.badNonce(size: 8)) {
            try SecretBox.open(Self.box, nonce: Array(Self.nonce.prefix(8)), key: Self.key)
        }
        #expect(throws: SecretBox.Failure.truncated(size: 15)) {
            try SecretBox.open(Array(Self.box.prefix(15)), nonce: Self.nonce, key: Self.key)
        }
    }

    @Test func randomNoncesAreFreshAndFull() {
        let nonces = (0..<1000).map { _ in SecretBox.randomNonce() }
        #expect(nonces.allSatisfy { $0.count == SecretBox.nonceSize })
        #expect(Set(nonces).count == nonces.count)
        // Every byte position takes many values (a stuck or zero-filled byte would not).
        for position in 0..<SecretBox.nonceSize {
            #expect(Set(nonces.map { $0[position] }).count > 200)
        }
    }

    @Test func tagComparisonLooksAtEveryByte() {
        let a = [UInt8](repeating: 0xa5, count: 16)
        a.withUnsafeBytes { a in
            #expect(Poly1305.tagsEqual(a.baseAddress!, a.baseAddress!))
            for index in 0..<16 {
                var b = [UInt8](repeating: 0xa5, count: 16)
                b[index] ^= 0x01
                b.withUnsafeBytes { b in #expect(!Poly1305.tagsEqual(a.baseAddress!, b.baseAddress!)) }
            }
        }
    }
}
