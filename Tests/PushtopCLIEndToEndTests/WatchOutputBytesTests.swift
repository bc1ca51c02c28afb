import Foundation
import PusherChannels
import PushtopCLI
import PushtopServer
import PushtopTestSupport
import Testing

/// `watch` writes event lines straight from the frame's bytes; what it prints must be, byte for byte, the line built
/// from `JSONValue`s that it printed before (keys sorted, compact, the same escapes and numbers).
@Suite(.timeLimit(.minutes(1))) struct WatchOutputBytesTests {
    static let dataTexts: [String] = [
        #"{"seq": 1, "t": 1732190000123456, "pad": "xxxx"}"#,
        #"{"symbol":"ACME","price":101.25,"volume":1200,"ts":1732190000123}"#,
        #"{"b":{"d":[1,2.50,-0,1e3,0.1],"c":"x"},"a":null,"e":true}"#,
        #"{"s":"caf\u00e9 \ud83d\ude00 \/ \" \\ \n \u0001"}"#,
        #"{"dup":1,"dup":2}"#, #"{"é":"ü","z":"漢🎉"}"#, "plain text, not JSON", "42", #""a string""#, "[]",
        "tab\there \"quoted\" \\ back",
    ]

    @Test func eventLinesAreTheJSONValueLines() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let app = server.configuration.app
        let watch = try PushtopProcess([
            "watch", "--key", app.key, "--host", "127.0.0.1", "--port", String(server.port), "--no-tls", "bytes",
        ])
        try await watch.waitForLine("subscribed") { $0["type"] as? String == "subscribed" }
        let api = PusherAPIClient(
            configuration: PusherAPIConfiguration(
                appID: app.id, key: app.key, secret: app.secret,
                port: server.port))
        for (i, text) in Self.dataTexts.enumerated() {
            let response = try await api.trigger(channels: ["bytes"], event: "e-\(i)", data: text)
            #expect(response.status == 200)
        }
        let last = "e-\(Self.dataTexts.count - 1)"
        try await watch.waitForLine("last event") { $0["event"] as? String == last }
        let printed = watch.lines.filter { $0.contains(#""type":"event""#) }
        let expected = Self.dataTexts.enumerated().map { i, text in
            WatchLine.object([
                ("type", "event"), ("channel", "bytes"), ("event", .string("e-\(i)")),
                ("data", JSONValue.parseIfJSON(text) ?? .string(text)),
            ])
        }
        #expect(printed == expected)
        watch.signal(SIGTERM)
        _ = try await watch.exitCode()
        await server.shutdown()
    }
}
