import PusherProtocol
import Testing

@testable import PushtopCLI

/// `watch` writes channel events' lines straight into its output bytes; they must stay byte for byte the lines it
/// printed before, when every line was built from `JSONValue`s.
@Suite struct WatchLineTests {
    static let dataTexts: [String?] = [
        nil, "", "hello", "not { json", #"{"symbol":"ACME","price":101.25,"volume":1200,"ts":1732190000123}"#,
        #"{"seq": 1, "t": 1732190000123456}"#, #"{"b":{"d":[1,2.50,-0,1e3],"c":"x"},"a":null}"#, "42", "-0.0",
        #""a json string""#, "[]", "{}", #"{"s":"caf\u00e9 \ud83d\ude00 \/ \" \\ \n"}"#, "tab\there \"quoted\"",
        #"{"dup":1,"dup":2}"#, #"{"é":1}"#, #"[1e400]"#, "é漢🎉", "\u{01}control", #"{"text":"hello 👋 #3"}"#,
    ]

    static var events: [ClientEvent] {
        var events: [ClientEvent] = []
        for (i, text) in dataTexts.enumerated() {
            events.append(
                .event(
                    ChannelEvent(
                        channel: i % 2 == 0 ? "ticker" : "presence-caf\u{e9} \"room\"",
                        name: i % 3 == 0 ? "price-update" : "client-\u{1}odd\\name",
                        dataText: text, userID: i % 4 == 0 ? "user-\(i)" : nil, receivedAt: 12.5)))
        }
        events.append(.state(StateChange(previous: .connecting, current: .connected, socketID: "1.2")))
        events.append(.subscribed(channel: "ticker", presence: nil))
        events.append(.error(code: 4001, message: "bad \"key\""))
        events.append(.subscribing(channel: "ticker"))
        return events
    }

    @Test func linesAreByteIdenticalToTheJSONValueLines() {
        var out: [UInt8] = []
        for event in Self.events {
            out.removeAll(keepingCapacity: true)
            let written = WatchLine.append(event, to: &out)
            let expected = WatchLine.jsonValueLine(event)
            #expect(written == (expected != nil))
            #expect(String(decoding: out, as: UTF8.self) == (expected ?? ""), "\(event)")
            #expect(WatchLine.encode(event) == expected)
        }
    }

    @Test func appendsAfterWhatIsAlreadyThere() {
        var out = Array("earlier line\n".utf8)
        let event = ClientEvent.event(ChannelEvent(channel: "c", name: "e", dataText: #"{"b": 2, "a": 1}"#))
        #expect(WatchLine.append(event, to: &out))
        #expect(
            String(decoding: out, as: UTF8.self) == "earlier line\n"
                + #"{"type":"event","channel":"c","event":"e","data":{"a":1,"b":2}}"#)
    }
}
