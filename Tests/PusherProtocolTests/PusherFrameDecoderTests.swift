import PushtopTestSupport
import Testing

@testable import PusherProtocol

/// The byte decoder the client uses must agree with `PusherMessage(decoding:)` on every input: same message, or
/// the same error.
@Suite struct PusherFrameDecoderTests {
    /// Frames covering what the scanner handles itself and what it hands to the full parser.
    static let corpus: [String] = [
        #"{"event":"price-update","channel":"ticker","data":"{\"symbol\":\"ACME\",\"price\":101.25}"}"#,
        #"{"event":"e","channel":"c","data":"hello"}"#,
        #"{"event":"e"}"#,
        #"{"event":"e","channel":null,"data":null,"user_id":null}"#,
        #"{"event":"e","data":{"x":1,"y":[true,false,null]}}"#,
        #"{"event":"e","data":5}"#,
        #"{"event":"e","user_id":42}"#,
        #"{"event":"e","user_id":4.5}"#,
        #"{"event":"e","user_id":true}"#,
        #"  {  "event" : "e" , "channel" : "c" , "data" : "d" }  "#,
        "{\n\t\"event\":\"e\",\r\n\"data\":\"d\"}",
        // Escapes in names and data, unicode, surrogate pairs, lone surrogates.
        #"{"event":"a\"b\\c\/d\b\f\n\r\t","channel":"caf\u00e9-\ud83d\ude00","data":"x\u0000y"}"#,
        #"{"event":"\ud83d","channel":"\ude00x","data":"\ud83dz"}"#,
        #"{"event":"\ud83d\u0041"}"#,
        #"{"event":"é-ünïcödé-名前-🎉","channel":"présence-канал-long-enough-name","data":"ç"}"#,
        // Escaped keys and duplicate keys.
        #"{"ev\u0065nt":"e","data":"d"}"#,
        #"{"event":"first","event":"second","channel":"a","channel":"b"}"#,
        #"{"event":"e","data":"x","data":null}"#,
        #"{"event":"e","event":5}"#,
        #"{"event":5,"event":"e"}"#,
        // Unknown fields of every kind, nested.
        #"{"unknown":{"a":[1,-2.5,0,-0,1e5,"s\"",{},[]],"b":{"c":null}},"event":"e","n":123456789012345678901234}"#,
        #"{"event":"e","x":1.5e300,"y":1E-5,"z":-0.0}"#,
        #"{"event":"e","big":1e400}"#,
        #"{"event":"e","bad":01}"#,
        #"{"event":"e","bad":1.}"#,
        #"{"event":"e","bad":-}"#,
        #"{"event":"e","bad":tru}"#,
        #"{"event":"e","bad":"\x"}"#,
        #"{"event":"e","bad":"\u12g4"}"#,
        // Malformed frames: every one must give the full parser's error.
        "", " ", "{", "}", "[1]", "\"event\"", "null", "{}", #"{"data":"x"}"#, #"{"event":"e""#, #"{"event":"e",}"#,
        #"{"event":"e"} x"#, #"{"event":"e" "channel":"c"}"#, #"{"event" "e"}"#, #"{event:"e"}"#,
        #"{"event":"e","channel":[1]}"#, #"{"event":"e","channel":5}"#, #"{"event":"unterminated}"#,
        "{\"event\":\"ctl\u{01}\"}", #"{"event":"e","data":"a\"#,
    ]

    static func reference(_ text: String) -> Result<PusherMessage, PusherMessageError> {
        do throws(PusherMessageError) {
            return .success(try PusherMessage(decoding: text))
        } catch {
            return .failure(error)
        }
    }

    static func decoded(_ text: String, with decoder: inout PusherFrameDecoder) -> Result<
        PusherMessage, PusherMessageError
    > {
        var text = text
        return text.withUTF8 { bytes in
            do throws(PusherMessageError) {
                return .success(try decoder.decode(UnsafeRawBufferPointer(bytes)))
            } catch {
                return .failure(error)
            }
        }
    }

    @Test(arguments: corpus)
    func agreesWithTheFullParser(_ text: String) {
        var decoder = PusherFrameDecoder()
        #expect(Self.decoded(text, with: &decoder) == Self.reference(text), "\(text)")
        // Again, with the names now cached.
        #expect(Self.decoded(text, with: &decoder) == Self.reference(text), "\(text)")
    }

    @Test func decodesTheUsualFrameWithoutTheFullParser() throws {
        let text = #"{"event":"price-update","channel":"ticker","data":"{\"p\":1}","user_id":"u1"}"#
        var copy = text
        let fields = copy.withUTF8 { bytes in
            var scanner = FrameScanner(bytes: bytes)
            return scanner.scanFrame()
        }
        #expect(fields != nil, "the scanner should take the usual frame itself")
        var decoder = PusherFrameDecoder()
        let message = try Self.decoded(text, with: &decoder).get()
        #expect(
            message == PusherMessage(event: "price-update", channel: "ticker", data: .string(#"{"p":1}"#), userID: "u1")
        )
    }

    /// Strings are scanned eight bytes at a time: a quote, backslash or control character anywhere in a word is found.
    @Test func findsSpecialBytesAtEveryPositionOfAWord() {
        var decoder = PusherFrameDecoder()
        for special in [#"\""#, #"\\"#, #"\n"#, #"\u00e9"#, "\u{01}", "\"", "é", "\u{7F}"] {
            for position in 0..<20 {
                let data =
                    String(repeating: "a", count: position) + special + String(repeating: "b", count: 19 - position)
                let text = #"{"event":"e","channel":"c","data":""# + data + #""}"#
                #expect(Self.decoded(text, with: &decoder) == Self.reference(text), "\(text)")
                var out: [UInt8] = []
                let json = "\"" + data + "\""
                let direct = CompactJSON.append(json, to: &out)
                #expect(direct == ((try? JSONValue(parsing: json)) != nil), "\(json)")
                if direct { #expect(out == Array((try! JSONValue(parsing: json)).jsonString.utf8), "\(json)") }
            }
        }
    }

    @Test func hugeDataDecodes() throws {
        let payload = String(repeating: #"{\"k\":\"vvvvvvvv\"},"#, count: 60_000)
        let text = #"{"event":"bulk","channel":"c","data":"["# + payload + #"0]"}"#
        var decoder = PusherFrameDecoder()
        #expect(Self.decoded(text, with: &decoder) == Self.reference(text))
        #expect(try Self.decoded(text, with: &decoder).get().dataText?.utf8.count == 60_000 * 17 + 3)
    }

    /// A long channel or event name seen before is reused, not built again for every frame.
    @Test func reusesLongNamesItHasSeen() throws {
        let text = #"{"event":"a-rather-long-event-name","channel":"private-encrypted-long-channel","data":"1"}"#
        var decoder = PusherFrameDecoder()
        let first = try Self.decoded(text, with: &decoder).get()
        let second = try Self.decoded(text, with: &decoder).get()
        func storage(_ s: String) -> UnsafePointer<UInt8>? {
            s.utf8.withContiguousStorageIfAvailable { $0.baseAddress! }
        }
        #expect(second == first)
        #expect(storage(second.event) == storage(first.event))
        #expect(storage(second.channel!) == storage(first.channel!))
        // Many different names: still right once the cache turns over.
        for i in 0..<100 {
            let other = #"{"event":"another-long-event-name-\#(i)","channel":"some-long-channel-name-\#(i % 20)"}"#
            #expect(Self.decoded(other, with: &decoder) == Self.reference(other))
        }
        #expect(try Self.decoded(text, with: &decoder).get() == first)
    }

    /// Mutations of the corpus (bytes replaced, dropped, duplicated): the decoder never disagrees.
    @Test func agreesOnMutatedFrames() {
        var random = SplitMix(seed: 0x5eed)
        let alphabet = Array(#"{}[]":,\ "eventchanldu0123456789-.eE+tfn/bru"#.utf8) + [0x01, 0xC3, 0xA9]
        var decoder = PusherFrameDecoder()
        for _ in 0..<20_000 {
            let bytes = random.mutated(
                Array(Self.corpus[Int(random.next() % UInt64(Self.corpus.count))].utf8), alphabet: alphabet)
            guard let text = String(validating: bytes, as: UTF8.self) else { continue }
            let got = Self.decoded(text, with: &decoder)
            let expected = Self.reference(text)
            if got != expected {
                Issue.record("disagree on \(text): \(got) vs \(expected)")
                return
            }
        }
    }

    @Test func validatesUTF8AsTheStandardLibraryDoes() {
        let cases: [[UInt8]] = [
            [], Array("plain".utf8), Array("é漢🎉".utf8), [0x80], [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80],
            [0xE0, 0x80, 0x80], [0xE0, 0xA0, 0x80], [0xED, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEF, 0xBF, 0xBF],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xE2, 0x82], [0x61, 0xE2, 0x82], [0xF0, 0x9F, 0x8E],
            [0xC3, 0x28], [0xE2, 0x28, 0xA1],
        ]
        for bytes in cases {
            let valid = bytes.withUnsafeBytes { UTF8Validation.isValid($0) }
            #expect(valid == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
        var random = SplitMix(seed: 7)
        for _ in 0..<50_000 {
            let count = Int(random.next() % 6)
            let bytes = (0..<count).map { _ in
                random.next() % 2 == 0 ? UInt8(truncatingIfNeeded: random.next()) : UInt8(0x80 + random.next() % 0x40)
            }
            let valid = bytes.withUnsafeBytes { UTF8Validation.isValid($0) }
            if valid != (String(validating: bytes, as: UTF8.self) != nil) {
                Issue.record("disagree on \(bytes)")
                return
            }
        }
    }
}
