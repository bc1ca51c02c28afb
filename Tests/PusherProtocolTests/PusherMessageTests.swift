import Testing

@testable import PusherProtocol

@Suite struct PusherMessageTests {
    @Test func decodesAServerEventWithStringData() throws {
        let m = try PusherMessage(
            decoding: #"{"event":"price","channel":"ticker","data":"{\"p\":1.5}","user_id":"u2"}"#)
        #expect(m.event == "price")
        #expect(m.channel == "ticker")
        #expect(m.userID == "u2")
        #expect(m.dataText == #"{"p":1.5}"#)
        #expect(m.dataJSON == ["p": 1.5])
    }

    @Test func keepsNonJSONDataAsAString() throws {
        let m = try PusherMessage(decoding: #"{"event":"e","channel":"c","data":"hello"}"#)
        #expect(m.dataJSON == "hello")
    }

    @Test func acceptsObjectData() throws {
        let m = try PusherMessage(decoding: #"{"event":"e","data":{"x":1}}"#)
        #expect(m.dataText == #"{"x":1}"#)
    }

    @Test func reportsWhatIsWrongWithAFrame() {
        #expect(throws: PusherMessageError.notAnObject) { try PusherMessage(decoding: "[1]") }
        #expect(throws: PusherMessageError.missingField("event")) { try PusherMessage(decoding: #"{"data":"x"}"#) }
        #expect(throws: PusherMessageError.wrongType(field: "event", expected: "string")) {
            try PusherMessage(decoding: #"{"event":5}"#)
        }
        #expect(throws: PusherMessageError.wrongType(field: "channel", expected: "string")) {
            try PusherMessage(decoding: #"{"event":"e","channel":[1]}"#)
        }
        do {
            _ = try PusherMessage(decoding: "{not json")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("not JSON"))
        }
    }

    @Test func encodesForTheWire() {
        let m = PusherMessage(event: "pusher:subscribe", data: ["channel": "private-x", "auth": "k:s"])
        #expect(m.jsonString == #"{"event":"pusher:subscribe","data":{"auth":"k:s","channel":"private-x"}}"#)
    }
}
