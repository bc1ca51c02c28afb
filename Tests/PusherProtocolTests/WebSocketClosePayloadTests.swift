import Testing

@testable import PusherProtocol

/// The close-payload rule the server and the client share (RFC 6455 sections 5.5.1 and 7.4).
struct WebSocketClosePayloadTests {
    static func payload(_ code: Int, _ reason: [UInt8] = []) -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + reason
    }

    @Test func emptyIsAValidCloseWithoutCode() {
        #expect(WebSocketClosePayload.check([]) == .valid(code: nil, reason: ""))
    }

    @Test func oneByteIs1002() {
        guard case .invalid(let code, _) = WebSocketClosePayload.check([0x03]) else { Issue.record("accepted"); return }
        #expect(code == 1002)
    }

    @Test func theCodeRanges() {
        let allowed = (0...65535).filter(WebSocketClosePayload.mayBeSent)
        let expected = Array(1000...1003) + Array(1007...1014) + Array(3000...4999)
        #expect(allowed == expected)
    }

    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535])
    func aCodeThatMustNotBeSentIs1002(code: Int) {
        #expect(
            WebSocketClosePayload.check(Self.payload(code, Array("x".utf8)))
                == .invalid(failWith: 1002, why: "a close frame with status code \(code), which must not be sent"))
    }

    @Test func aReasonThatIsNotUTF8Is1007() {
        let verdict = WebSocketClosePayload.check(Self.payload(1000, [0xCE, 0xBA, 0xED, 0xA0, 0x80]))
        guard case .invalid(let code, _) = verdict else { Issue.record("accepted"); return }
        #expect(code == 1007)
        // Truncated at the end of the payload: also not UTF-8.
        guard case .invalid(1007, _) = WebSocketClosePayload.check(Self.payload(4001, [0x61, 0xE2, 0x82])) else {
            Issue.record("a truncated sequence was accepted"); return
        }
    }

    @Test func aValidCloseKeepsCodeAndReason() {
        #expect(
            WebSocketClosePayload.check(Self.payload(4200, Array("κόσμε".utf8))) == .valid(code: 4200, reason: "κόσμε"))
        #expect(WebSocketClosePayload.check(Self.payload(1000)) == .valid(code: 1000, reason: ""))
    }

    @Test func aReasonIsCutToFitAControlFrameBetweenCharacters() {
        #expect(WebSocketClosePayload.fitting("bye") == "bye")
        let ascii = String(repeating: "a", count: 200)
        #expect(WebSocketClosePayload.fitting(ascii).utf8.count == 123)
        // 61 two-byte characters take 122 bytes; the 62nd would take 124, so it is left out whole.
        let greek = String(repeating: "κ", count: 80)
        let cut = WebSocketClosePayload.fitting(greek)
        #expect(cut.utf8.count == 122)
        #expect(cut == Substring(String(repeating: "κ", count: 61)))
        // What every end sends is the code and the cut reason, and it passes the check both ends run.
        let encoded = WebSocketClosePayload.encoded(code: 4009, reason: greek)
        #expect(encoded == Self.payload(4009, Array(cut.utf8)))
        #expect(encoded.count == 124)
        #expect(WebSocketClosePayload.check(encoded) == .valid(code: 4009, reason: String(cut)))
    }
}
