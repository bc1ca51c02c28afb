import Testing

@testable import PusherProtocol

@Suite struct ChannelNameTests {
    @Test(arguments: [
        "my-channel", "private-a_b=c@d,e.f;g", "presence-lobby", "private-encrypted-x", "cache-x",
        String(repeating: "a", count: 164),
    ])
    func acceptsValidNames(_ name: String) {
        #expect(ChannelName.isValid(name))
    }

    @Test func refusesWithAReason() {
        #expect(throws: ChannelName.ValidationError.empty) { try ChannelName.validate("") }
        #expect(throws: ChannelName.ValidationError.tooLong(length: 165)) {
            try ChannelName.validate(String(repeating: "a", count: 165))
        }
        #expect(throws: ChannelName.ValidationError.invalidCharacter(" ", position: 3)) {
            try ChannelName.validate("ab cd")
        }
        #expect(throws: ChannelName.ValidationError.invalidCharacter("#", position: 1)) {
            try ChannelName.validate("#server-to-user-1")
        }
        #expect(throws: ChannelName.ValidationError.invalidCharacter("é", position: 2)) {
            try ChannelName.validate("aé")
        }
        #expect(ChannelName.ValidationError.tooLong(length: 170).description.contains("164"))
    }

    @Test func kindsFollowThePrefix() {
        #expect(ChannelKind(channelName: "private-encrypted-x") == .encrypted)
        #expect(ChannelKind(channelName: "private-x") == .private)
        #expect(ChannelKind(channelName: "presence-x") == .presence)
        #expect(ChannelKind(channelName: "cache-x") == .cache)
        #expect(ChannelKind(channelName: "x") == .public)
        #expect(ChannelKind.presence.allowsClientEvents && ChannelKind.private.allowsClientEvents)
        #expect(!ChannelKind.encrypted.allowsClientEvents && !ChannelKind.public.allowsClientEvents)
    }
}
