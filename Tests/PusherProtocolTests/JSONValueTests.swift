import Testing

@testable import PusherProtocol

@Suite struct JSONValueTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue(
            parsing: #"{"a":[1,2.5,-3e2,true,false,null],"b":"x\"y\\z\u00e9\ud83d\ude00","c":{}}"#)
        #expect(value["a"] == .array([1, 2.5, -300, true, false, nil]))
        #expect(value["b"] == .string("x\"y\\zé😀"))
        #expect(value["c"] == .object([:]))
    }

    @Test func parsesScalarDocuments() throws {
        #expect(try JSONValue(parsing: " 42 ") == 42)
        #expect(try JSONValue(parsing: "\"hi\"") == "hi")
        #expect(try JSONValue(parsing: "null") == nil)
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "tru", "\"unterminated", "01x", "{\"a\":1}}", "\"\u{01}\"", "-", "1.", "[1 2]",
    ])
    func rejectsMalformedJSON(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    @Test func rejectsExcessiveNesting() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
    }

    @Test func writesCompactSortedJSON() {
        let value: JSONValue = ["b": [1, 2.5, "x\n"], "a": nil, "c": true]
        #expect(value.jsonString == #"{"a":null,"b":[1,2.5,"x\n"],"c":true}"#)
    }

    @Test func roundTripsThroughText() throws {
        let text = #"{"emoji":"😀","ctl":"\u0001","n":-12,"f":0.125,"nested":{"k":[{"z":null}]}}"#
        let value = try JSONValue(parsing: text)
        #expect(try JSONValue(parsing: value.jsonString) == value)
    }
}
