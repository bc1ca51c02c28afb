import Testing

@testable import PusherProtocol

@Suite struct CloseCodeTests {
    @Test func rangesMapToActions() {
        #expect(CloseCode.action(for: 4000) == .retryWithTLS)
        for code in [4001, 4004, 4009, 4099, 4300, 4301, 4999] { #expect(CloseCode.action(for: code) == .refuse) }
        for code in [4100, 4150, 4199] { #expect(CloseCode.action(for: code) == .backOff) }
        for code in [4200, 4201, 4299] { #expect(CloseCode.action(for: code) == .reconnectNow) }
        for code in [nil, 1000, 1001, 1006, 3000] { #expect(CloseCode.action(for: code) == .followPolicy) }
    }

    @Test func meaningsAreReadable() {
        #expect(CloseCode.meaning(of: 4001) == "application does not exist")
        #expect(CloseCode.meaning(of: 4201) == "pong reply not received")
        #expect(CloseCode.meaning(of: nil) == "connection lost")
    }
}
