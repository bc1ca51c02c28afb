import Testing
import PusherProtocol

/// Inputs the fuzzers (`scripts/fuzz`) found wrong, kept so that they stay fixed. Each is also a corpus entry
/// under `Fuzz/corpus/`.
@Suite struct FuzzRegressionTests {
    /// fuzz-json: `1.5e15678` parsed to infinity and was written back as `null`, so `watch` printed `null` for it.
    @Test(arguments: ["[1.5e15678]", "1e400", "-1e400", #"{"n":12e9999}"#])
    func numbersBeyondDoubleAreRejected(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    @Test func largeFiniteNumbersStillParseAndRoundTrip() throws {
        let value = try JSONValue(parsing: "[1.7976931348623157e308,-1e-400,123456789012345678]")
        #expect(try JSONValue(parsing: value.jsonString) == value)
    }
}
