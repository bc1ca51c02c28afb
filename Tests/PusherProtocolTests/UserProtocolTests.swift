import PusherProtocol
import Testing

/// User authentication signatures, `user_data` and watchlist frames as Pusher defines them.
@Suite struct UserProtocolTests {
    /// Pusher's worked example ("Generating authentication and authorization strings", user authentication):
    /// key 278d425bdf160c739803, secret 7ad3773142a6692b25b8, socket 1234.1234, user_data {"id":"12345"}.
    @Test func signatureMatchesPushersWorkedExample() {
        #expect(
            UserAuthSignature.stringToSign(socketID: "1234.1234", userData: #"{"id":"12345"}"#)
                == #"1234.1234::user::{"id":"12345"}"#)
        let auth = UserAuthSignature.auth(
            key: "278d425bdf160c739803", secret: "7ad3773142a6692b25b8",
            socketID: "1234.1234", userData: #"{"id":"12345"}"#)
        #expect(auth == "278d425bdf160c739803:4708d583dada6a56435fb8bc611c77c359a31eebde13337c16ab43aa6de336ba")
        #expect(
            UserAuthSignature.verify(
                auth: auth, key: "278d425bdf160c739803", secret: "7ad3773142a6692b25b8",
                socketID: "1234.1234", userData: #"{"id":"12345"}"#))
        #expect(
            !UserAuthSignature.verify(
                auth: auth, key: "278d425bdf160c739803", secret: "7ad3773142a6692b25b8",
                socketID: "1234.1235", userData: #"{"id":"12345"}"#))
    }

    @Test func userDataNeedsAStringID() throws {
        let user = try SignedInUser(userData: #"{"id":"u1","user_info":{"n":1},"watchlist":["a","b"]}"#)
        #expect(user.id == "u1")
        #expect(user.watchlist == ["a", "b"])
        #expect(user.userInfo == ["n": 1])
        #expect(throws: UserDataError.missingID) { try SignedInUser(userData: #"{"id":1}"#) }
        #expect(throws: UserDataError.missingID) { try SignedInUser(userData: #"{"id":""}"#) }
        #expect(throws: UserDataError.notAnObject) { try SignedInUser(userData: "[]") }
        #expect(throws: UserDataError.invalidWatchlist) { try SignedInUser(userData: #"{"id":"u","watchlist":"a"}"#) }
    }

    @Test func watchlistEventsRoundTrip() {
        let changes = [
            WatchlistChange(status: .online, userIDs: ["a", "b"]), WatchlistChange(status: .offline, userIDs: ["c"]),
        ]
        let data = WatchlistChange.watchlistData(changes)
        #expect(WatchlistChange.changes(fromWatchlistData: data) == changes)
        #expect(WatchlistChange.changes(fromWatchlistData: ["events": [["name": "away", "user_ids": ["x"]]]]).isEmpty)
        #expect(WatchlistChange.changes(fromWatchlistData: nil).isEmpty)
    }
}
