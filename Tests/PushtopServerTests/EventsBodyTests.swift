import Testing

@testable import PusherProtocol
@testable import PushtopServer

/// `POST /events` reads a plain body from its bytes (`PublishBodyScanner`) and every other body with the JSON
/// parser: both must decide every body alike, the same event or the same refusal.
@Suite struct EventsBodyTests {
    /// Bodies covering what the scanner reads itself and what it hands to the parser.
    static let corpus: [String] = [
        #"{"name":"my-event","channels":["my-channel"],"data":"{\"message\":\"hello world\"}"}"#,
        #"{"name":"e","channel":"c","data":"d"}"#,
        #"{"name":"e","channels":["a","b"],"channel":"c","data":"d","socket_id":"123.456","info":"subscription_count"}"#,
        #"{"name":"e","channels":[],"data":"d"}"#,
        #"{"name":"e","channels":["a"]}"#,
        #"{"name":"e","channels":["a"],"data":null}"#,
        #"{"name":"e","channels":["a"],"data":"x","data":null}"#,
        #"{"name":"e","channels":["a"],"data":null,"data":"y"}"#,
        #"{"name":"first","name":"second","channel":"a","channel":"b"}"#,
        #"  { "name" : "e" , "channels" : [ "a" , "b" ] , "data" : "d" }  "#,
        "{\n\t\"name\":\"e\",\r\n\"channel\":\"c\",\"data\":\"d\"}",
        // Escapes, unicode, surrogates in values.
        #"{"name":"a\"b\\c\/d\b\f\n\r\t","channel":"caf\u00e9-\ud83d\ude00","data":"x\u0000y"}"#,
        #"{"name":"\ud83d","channel":"\ude00x","data":"\ud83dz"}"#,
        #"{"name":"é-ünïcödé-名前-🎉","channels":["présence-канал"],"data":"ç"}"#,
        // data of other kinds: the parser's (re-serialised).
        #"{"name":"e","channel":"c","data":{"x":1,"y":[true,false,null]}}"#,
        #"{"name":"e","channel":"c","data":5}"#,
        #"{"name":"e","channel":"c","data":true}"#,
        // Unknown fields, nested; escaped keys.
        #"{"unknown":{"a":[1,-2.5,0,-0,1e5,"s\"",{},[]],"b":{"c":null}},"name":"e","channel":"c","n":12345678901234567890}"#,
        #"{"n\u0061me":"e","channel":"c"}"#,
        #"{"name":"e","channel":"c","big":1e400}"#,
        // Refusals: every one must be the parser's.
        #"{"channel":"c","data":"d"}"#, #"{"name":5,"channel":"c"}"#, #"{"name":null,"channel":"c"}"#,
        #"{"name":"e","channel":null}"#, #"{"name":"e","channel":5}"#, #"{"name":"e","channels":"a"}"#,
        #"{"name":"e","channels":[1]}"#, #"{"name":"e","channels":["a",null]}"#, #"{"name":"e","channels":null}"#,
        #"{"name":"e","channel":"c","socket_id":"1.2"}"#, #"{"name":"e","channel":"c","socket_id":"12"}"#,
        #"{"name":"e","channel":"c","socket_id":"1.x"}"#, #"{"name":"e","channel":"c","socket_id":12.5}"#,
        #"{"name":"e","channel":"c","socket_id":null}"#, #"{"channel":"c","socket_id":"bad"}"#,
        #"{"name":"e","channel":"c","info":"user_count,subscription_count"}"#,
        #"{"name":"e","channel":"c","info":"nope"}"#, #"{"name":"e","channel":"c","info":5}"#,
        #"{"channel":"c","info":5}"#,
        "", " ", "{", "}", "[1]", "null", "{}", #"{"name":"e""#, #"{"name":"e",}"#, #"{"name":"e"} x"#,
        #"{"name":"e" "channel":"c"}"#, #"{"name" "e"}"#, #"{name:"e"}"#, #"{"name":"unterminated}"#,
        "{\"name\":\"ctl\u{01}\"}", #"{"name":"e","data":"a\"#, #"{"name":"e","bad":01}"#,
    ]

    static func decided(_ bytes: [UInt8], _ read: ([UInt8]) throws(APIFailure) -> EventsBody) -> String {
        do throws(APIFailure) {
            let body = try read(bytes)
            return "\(body.requests) \(body.info)"
        } catch {
            return "refused \(error.status): \(error.message)"
        }
    }

    @Test(arguments: corpus)
    func decidesAsTheParserDoes(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(Self.decided(bytes, EventsBody.events) == Self.decided(bytes, EventsBody.parsedEvents), "\(text)")
    }

    @Test func invalidUTF8IsTheParsersRefusal() {
        let bytes = Array(#"{"name":"e","channel":"c","data":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(Self.decided(bytes, EventsBody.events) == "refused 400: Request body is not valid UTF-8")
    }

    @Test func readsTheUsualBodyWithoutTheParser() throws {
        let text =
            #"{"name":"my-event","channels":["a","b"],"channel":"c","data":"{\"m\":1}","socket_id":"1.2","x":[{}]}"#
        let fields = try #require(Array(text.utf8).withUnsafeBytes { PublishBodyScanner.scan($0) })
        #expect(
            fields
                == PublishBodyScanner.Fields(
                    name: "my-event", channel: "c", channels: ["a", "b"], data: #"{"m":1}"#, socketID: "1.2", info: nil)
        )
        // What only the parser may judge.
        for other in [#"{"name":"e","data":{}}"#, #"{"n\u0061me":"e"}"#, #"{"name":5}"#, #"{"name":"e"} x"#] {
            #expect(Array(other.utf8).withUnsafeBytes { PublishBodyScanner.scan($0) } == nil, "\(other)")
        }
    }
}
