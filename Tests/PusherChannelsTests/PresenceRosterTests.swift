import Testing
@testable import PusherChannels

@Suite struct PresenceRosterTests {
    @Test func replacesFromSubscriptionData() throws {
        var roster = PresenceRoster()
        let presence = try JSONValue(parsing: #"{"ids":["a",7],"hash":{"a":{"name":"Ann"},"7":null},"count":2}"#)
        roster.replace(withPresence: presence, me: "a")
        #expect(roster.members.map(\.userID) == ["a", "7"])
        #expect(roster.member("a")?.userInfo == ["name": "Ann"])
        #expect(roster.me == "a")
    }

    @Test func sameUserTwiceIsOneMember() {
        var roster = PresenceRoster()
        #expect(roster.add(PresenceMember(userID: "u", userInfo: ["v": 1])))
        #expect(!roster.add(PresenceMember(userID: "u", userInfo: ["v": 2])))
        #expect(roster.count == 1)
        #expect(roster.member("u")?.userInfo == ["v": 2])
    }

    @Test func removingAnUnknownMemberDoesNothing() {
        var roster = PresenceRoster()
        roster.add(PresenceMember(userID: "u"))
        #expect(roster.remove(userID: "x") == nil)
        #expect(roster.remove(userID: "u")?.userID == "u")
        #expect(roster.count == 0)
    }
}
