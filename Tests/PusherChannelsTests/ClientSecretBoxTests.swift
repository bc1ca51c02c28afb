import Foundation
import Testing

@testable import PusherChannels

@Suite struct SecretBoxTests {
    let key = [UInt8](repeating: 7, count: 32)

    @Test func roundTripsAPusherPayload() throws {
        let sealed = try ClientSecretBox.sealPusherPayload(#"{"msg":"hi"}"#, key: key)
        #expect(try ClientSecretBox.openPusherPayload(sealed, key: key) == #"{"msg":"hi"}"#)
    }

    @Test func wrongKeyFailsAuthentication() throws {
        let sealed = try ClientSecretBox.sealPusherPayload("secret", key: key)
        #expect(throws: ClientSecretBox.Failure.authenticationFailed) {
            try ClientSecretBox.openPusherPayload(sealed, key: [UInt8](repeating: 8, count: 32))
        }
    }

    @Test func malformedPayloadsAreNamed() {
        #expect(throws: ClientSecretBox.Failure.self) { try ClientSecretBox.openPusherPayload("nope", key: key) }
        #expect(throws: ClientSecretBox.Failure.badKey(size: 3)) {
            try ClientSecretBox.open(ciphertext: [], nonce: [], key: [1, 2, 3])
        }
    }

    @Test func derivedSharedSecretMatchesPusherRule() {
        // SHA-256(channel name bytes + master key bytes), as the server SDKs derive it.
        let master = Array("abcdefghijklmnopqrstuvwxyz012345".utf8)
        let derived = ChannelAuthSignature.sharedSecret(channel: "private-encrypted-x", masterKey: master)
        #expect(derived.count == 32)
        #expect(Data(derived).base64EncodedString() == "RlV/LxbBpywnmFswK1l0eaGVQ+hrxxs/dRlV2XotteQ=")
    }
}
