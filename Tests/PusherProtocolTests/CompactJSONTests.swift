import PushtopTestSupport
import Testing

@testable import PusherProtocol

/// `CompactJSON` writes bytes straight from the text; they must be exactly what `JSONValue`'s `jsonString` gives.
@Suite struct CompactJSONTests {
    static let corpus: [String] = [
        #"{"symbol":"ACME","price":101.25,"volume":1200,"ts":1732190000123}"#,
        #"{"seq": 1, "t": 1732190000123456}"#,
        "{\n  \"b\" : [ 1 , 2 ] ,\n\t\"a\" : { \"d\" : null , \"c\" : true }\r\n}",
        #"{}"#, #"[]"#, #"[{}]"#, #"{"a":{}}"#, #"[[],[[]]]"#, "  {} ",
        #""just a string""#, #"123"#, #"-0"#, #"true"#, #"false"#, #"null"#,
        #"[0,-0,1,-1,10,1.0,-1.0,1.5,0.1,101.25,1e3,1E3,1e+3,1e-7,2.5e-3,-0.0,123456789012345,1234567890123456]"#,
        #"[1732190000123456,-1732190000123456,-8999999999999999,12345678901234567,123456789012345678,9007199254740993,8999999999999999,9000000000000000,1.7976931348623157e308,-1e-400]"#,
        #"[0.30000000000000004,100000000000000000000,1e21,3.14159265358979323846264338327950288]"#,
        #"{"s":"a\"b\\c\/d\b\f\n\r\t\u0001\u001f\u007f\u00e9\u4e2d\ud83d\ude00"}"#,
        #"{"lone":"\ud83d","low":"\ude00","high-then-other":"\ud83dx","pair":"\uD83D\uDE00"}"#,
        #"{"raw":"é漢🎉 and \/ slash","ctl-escaped":"\u0000"}"#,
        #"{"b":1,"a":2,"B":3,"A":4,"_":5,"aa":6,"a a":7,"":8,"~":9}"#,
        #"{"dup":1,"dup":2}"#,
        #"{"é":1,"e":2}"#,
        #"{"k\u0065y":1,"a":2}"#,
        "{" + (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}",
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
        String(repeating: "{\"a\":", count: 40) + "1" + String(repeating: "}", count: 40),
        // Not JSON: `append` must say so and leave the output alone.
        "", " ", "{", "[1,]", #"{"a":1,}"#, #"{"a" 1}"#, #"{a:1}"#, "01", "1.", "-", "1e", "tru", "nul",
        #""unterminated"#, #""bad \x escape""#, #""\u12g4""#, "\"ctl \u{01}\"", #"[1e400]"#, #"{"n":12e9999}"#,
        #"{"a":1} x"#, #"[1]]"#, #"{"a":[1}"#, #"{"a":{"b":1]}"#, #""\ud83d\u0041""#,
    ]

    static func reference(_ text: String) -> [UInt8]? {
        (try? JSONValue(parsing: text)).map { Array($0.jsonString.utf8) }
    }

    static func compact(_ text: String) -> [UInt8]? {
        var out: [UInt8] = Array("prefix".utf8)
        guard CompactJSON.append(text, to: &out) else {
            return out == Array("prefix".utf8) ? nil : [0xFF]  // output touched although not JSON: a failure
        }
        return Array(out.dropFirst(6))
    }

    @Test(arguments: corpus)
    func writesWhatJSONValueWrites(_ text: String) {
        let expected = Self.reference(text)
        let got = Self.compact(text)
        #expect(
            got == expected,
            "\(text): \(got.map { String(decoding: $0, as: UTF8.self) } ?? "nil") vs \(expected.map { String(decoding: $0, as: UTF8.self) } ?? "nil")"
        )
    }

    /// The usual documents are written straight from their bytes, without `JSONValue`.
    @Test(arguments: [
        #"{"symbol":"ACME","price":101.25,"volume":1200,"ts":1732190000123}"#, #"{"seq": 1, "t": 1732190000123456}"#,
        #"{"s":"caf\u00e9 \ud83d\ude00","list":[1,2,{"z":0,"y":null}]}"#,
    ])
    func writesUsualDocumentsDirectly(_ text: String) {
        var copy = text
        var out: [UInt8] = []
        let direct = copy.withUTF8 { bytes in
            var writer = CompactJSONWriter(bytes: bytes)
            return writer.document(to: &out)
        }
        #expect(direct)
        #expect(out == Self.reference(text))
    }

    @Test func writesStringsAsJSONValueDoes() {
        for s in [
            "", "plain", "quote \" backslash \\ slash /", "\n\r\t\u{08}\u{0C}\u{00}\u{1F}\u{7F}", "é漢🎉",
            "mixed \u{01}é",
        ] {
            var out: [UInt8] = []
            CompactJSON.appendString(s, to: &out)
            var expected = ""
            JSONValue.writeString(s, to: &expected)
            #expect(out == Array(expected.utf8), "\(s)")
        }
    }

    /// Mutations of the corpus: the direct writer never disagrees with `JSONValue`.
    @Test func agreesOnMutatedDocuments() {
        var random = SplitMix(seed: 0xc0ffee)
        let alphabet = Array(#"{}[]":,\ abe0123456789-.eE+tfnulr/u"#.utf8) + [0x01, 0xC3, 0xA9]
        let seeds = Self.corpus.filter { Self.reference($0) != nil }
        for _ in 0..<20_000 {
            let bytes = random.mutated(Array(seeds[Int(random.next() % UInt64(seeds.count))].utf8), alphabet: alphabet)
            guard let text = String(validating: bytes, as: UTF8.self) else { continue }
            if Self.compact(text) != Self.reference(text) {
                Issue.record("disagree on \(text)")
                return
            }
        }
    }
}
