import Testing

@testable import PusherProtocol

/// The one query reader's rule: pairs, decoding, `+`, and the errors that name their parameter.
@Suite struct URLQueryTests {
    /// The pairs of `text` as `name=value` strings, in order.
    func read(_ text: String) throws -> [String] {
        try URLQuery(text).pairs.map { "\($0.name)=\($0.value)" }
    }

    func error(_ text: String) -> URLQueryError? {
        do {
            _ = try URLQuery(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func pairsComeInTheOrderSent() throws {
        #expect(try read("protocol=7&client=js&version=8.4.0") == ["protocol=7", "client=js", "version=8.4.0"])
        #expect(try read("") == [])
        let query = try URLQuery("b=2&a=1")
        #expect(query["a"] == "1" && query["b"] == "2" && query["c"] == nil)
        #expect(query.dictionary == ["a": "1", "b": "2"])
    }

    @Test func emptyValuesAndEmptyPairs() throws {
        // `a=` and `a` are both `a` with an empty value; empty pairs are skipped.
        #expect(try read("a=&b") == ["a=", "b="])
        #expect(try read("a&&b=1&") == ["a=", "b=1"])
        #expect(try read("&") == [])
        #expect(try read("=x") == ["=x"])
        // Only the first `=` splits.
        #expect(try read("data=a=b") == ["data=a=b"])
        #expect(try URLQuery("info=")["info"] == "")
    }

    @Test func aRepeatedNameIsAnErrorNamingIt() {
        #expect(error("types=error&types=api_message") == .repeated("types"))
        #expect(error("a=1&b=2&a=1") == .repeated("a"))
        // Empty values and bare names repeat too.
        #expect(error("a&a=") == .repeated("a"))
        // Names are compared decoded, and case-sensitively.
        #expect(error("a=1&%61=2") == .repeated("a"))
        #expect(error("a+b=1&a%20b=2") == .repeated("a b"))
        #expect(error("a=1&A=2") == nil)
        #expect(error("types=error&types=api_message")?.name == "types")
        #expect(
            error("types=error&types=api_message")?.description == "Query parameter 'types' is given more than once")
    }

    @Test func aRepeatedNameIsFoundInALongQuery() {
        let many = (0..<200).map { "p\($0)=\($0)" }
        #expect(error(many.joined(separator: "&")) == nil)
        #expect(error((many + ["p150=again"]).joined(separator: "&")) == .repeated("p150"))
        #expect(error((many + ["p3=again"]).joined(separator: "&")) == .repeated("p3"))
        #expect(error((["x=1"] + many + ["x=2"]).joined(separator: "&")) == .repeated("x"))
    }

    @Test func percentEscapesAreDecoded() throws {
        #expect(try read("channel=private-a%2Cb&x=%7B%22a%22%3A1%7D") == ["channel=private-a,b", #"x={"a":1}"#])
        #expect(try read("a%5Bb%5D=1") == ["a[b]=1"])
        // Hex digits in either case.
        #expect(try read("hex=%c3%A9%C3%a9") == ["hex=éé"])
        #expect(try read("amp=%26&eq=%3D") == ["amp=&", "eq=="])
    }

    @Test func plusIsASpaceAndEscapedPlusIsAPlus() throws {
        #expect(try read("name=Mr.+Channels&sum=1%2B1") == ["name=Mr. Channels", "sum=1+1"])
        #expect(try read("a+b=c+d") == ["a b=c d"])
        #expect(try read("s=%20+") == ["s=  "])
    }

    @Test func theLiteralPlusReadingKeepsEachPlus() throws {
        #expect(try URLQuery("a=1&b=2").readingPlusLiterally == nil)
        let literal = try #require(try URLQuery("x=a+b&y=1%2B1&z=c%20d").readingPlusLiterally)
        #expect(literal.pairs.map { "\($0.name)=\($0.value)" } == ["x=a+b", "y=1+1", "z=c d"])
        // A query whose two names become one when `+` is itself has no such reading.
        #expect(try URLQuery("a+b=1&a%2Bb=2").readingPlusLiterally == nil)
    }

    @Test func badPercentEncodingIsAnErrorNamingTheParameter() {
        #expect(error("types=100%") == .badPercentEncoding("types"))
        #expect(error("types=%2") == .badPercentEncoding("types"))
        #expect(error("types=%zz") == .badPercentEncoding("types"))
        #expect(error("ok=1&types=%G1") == .badPercentEncoding("types"))
        #expect(error("types=%%41") == .badPercentEncoding("types"))
        // A broken name is named as it was sent.
        #expect(error("ty%pes=1") == .badPercentEncoding("ty%pes"))
        #expect(error("x=%") == .badPercentEncoding("x"))
        #expect(error("x=%")?.description.contains("'x'") == true)
    }

    @Test func escapesMustDecodeToUTF8() throws {
        #expect(try read("name=%C3%A9t%C3%A9&emoji=%F0%9F%98%80") == ["name=été", "emoji=😀"])
        // Raw UTF-8 in the query passes as it is.
        #expect(try read("name=été") == ["name=été"])
        #expect(error("name=%FF") == .notUTF8("name"))
        #expect(error("name=%C3") == .notUTF8("name"))
        #expect(error("name=%C0%AF") == .notUTF8("name"))  // overlong
        #expect(error("%FF=1") == .notUTF8("%FF"))
    }

    @Test func theFirstBreakWins() {
        #expect(error("a=%zz&a=1") == .badPercentEncoding("a"))
        #expect(error("a=1&a=%zz") == .badPercentEncoding("a"))
        #expect(error("a=1&a=2&b=%zz") == .repeated("a"))
    }

    @Test func aTargetIsSplitAtItsFirstQuestionMark() throws {
        let (path, query) = try URLQuery.split(target: "/app/KEY?protocol=7&client=js")
        #expect(path == "/app/KEY")
        #expect(query["protocol"] == "7" && query["client"] == "js")
        let (bare, none) = try URLQuery.split(target: "/app/KEY")
        #expect(bare == "/app/KEY" && none.isEmpty)
        let (empty, nothing) = try URLQuery.split(target: "/apps/1/console?")
        #expect(empty == "/apps/1/console" && nothing.isEmpty)
        #expect(try URLQuery.split(target: "/a?q=what?").query["q"] == "what?")
        #expect(throws: URLQueryError.repeated("protocol")) {
            try URLQuery.split(target: "/app/KEY?protocol=7&protocol=6")
        }
    }

    @Test func pairsGivenDirectlyMustNotRepeat() throws {
        #expect(try URLQuery(pairs: [("a", "1"), ("b", "")]).dictionary == ["a": "1", "b": ""])
        #expect(throws: URLQueryError.repeated("a")) { try URLQuery(pairs: [("a", "1"), ("a", "2")]) }
    }

    @Test func longNamesAreCutInTheMessage() {
        let name = String(repeating: "n", count: 500)
        let message = error("\(name)=1&\(name)=2")?.description ?? ""
        #expect(message.contains(String(repeating: "n", count: 200) + "…"))
        #expect(!message.contains(String(repeating: "n", count: 201)))
    }

    /// The signature is made over the decoded pairs: an escaped value signs as its decoded text.
    @Test func theSignatureCoversTheDecodedPairs() throws {
        let query = try URLQuery("filter_by_prefix=presence-a%2Cb&info=user_count&auth_key=k")
        let signed = APIRequestSignature.stringToSign(method: "GET", path: "/apps/1/channels", pairs: query.pairs)
        #expect(signed == "GET\n/apps/1/channels\nauth_key=k&filter_by_prefix=presence-a,b&info=user_count")
    }
}
