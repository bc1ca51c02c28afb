import PusherProtocol
import Testing

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

    /// fuzz-api: with two keys equal once lower-cased (`auth_key`, `auth_kEy`), the string to sign depended on the
    /// dictionary's iteration order, so a correctly signed request could be refused.
    @Test func stringToSignDoesNotDependOnDictionaryOrder() {
        let pairs = [
            ("auth_kEy", "pushtop-kei"), ("auth_key", "pushtop-key"), ("AUTH_KEY", "x"),
            ("auth_timestamp", "1700000000"), ("auth_version", "1.0"),
        ]
        var texts = Set<String>()
        for capacity in [0, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192] {
            var parameters = [String: String](minimumCapacity: capacity)
            for (key, value) in capacity % 3 == 0 ? pairs : pairs.reversed() { parameters[key] = value }
            texts.insert(
                APIRequestSignature.stringToSign(method: "POST", path: "/apps/1/events", parameters: parameters))
        }
        #expect(texts.count == 1, "\(texts)")
    }
}
