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
        let first = roster.add(PresenceMember(userID: "u", userInfo: ["v": 1]))
        let second = roster.add(PresenceMember(userID: "u", userInfo: ["v": 2]))
        #expect(first && !second)
        #expect(roster.count == 1)
        #expect(roster.member("u")?.userInfo == ["v": 2])
    }

    @Test func removingAnUnknownMemberDoesNothing() {
        var roster = PresenceRoster()
        roster.add(PresenceMember(userID: "u"))
        let unknown = roster.remove(userID: "x")
        let known = roster.remove(userID: "u")
        #expect(unknown == nil && known?.userID == "u")
        #expect(roster.count == 0)
    }
}
