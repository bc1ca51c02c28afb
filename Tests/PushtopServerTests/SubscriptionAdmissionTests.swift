import PusherProtocol
import Testing

@testable import PushtopServer

/// The rules of `pusher:subscribe`, read like the spec: "given …, when a connection subscribes with …, then …".
@Suite struct SubscriptionAdmissionTests {
    typealias Decision = SubscriptionAdmission.Decision

    let app = AppCredentials()
    let socketID = "123.456"

    var admission: SubscriptionAdmission {
        var limits = PusherLimits()
        limits.maxPresenceMembers = 3
        return SubscriptionAdmission(app: app, limits: limits)
    }

    func subscriber(channels: Set<String> = [], signedIn: String? = nil) -> SubscriptionAdmission.Subscriber {
        .init(socketID: socketID, channels: channels, signedInUserID: signedIn)
    }

    /// Decides on `data` for a connection, on a node whose presence channels hold `members` users (none of
    /// them `alreadyMember` unless said).
    func decide(
        _ data: JSONValue?, subscriber: SubscriptionAdmission.Subscriber? = nil, members: Int = 0,
        alreadyMember: Bool = false, clusterDecides: Bool = false
    ) -> Decision {
        admission.decide(data, from: subscriber ?? self.subscriber(), clusterDecidesMembers: clusterDecides) { _, _ in
            (members, alreadyMember)
        }
    }

    func signed(_ channel: String, channelData: String? = nil, socketID: String? = nil) -> JSONValue {
        var fields: [String: JSONValue] = [
            "channel": .string(channel),
            "auth": .string(
                ChannelAuthSignature.auth(
                    key: app.key, secret: app.secret, socketID: socketID ?? self.socketID, channel: channel,
                    channelData: channelData)),
        ]
        if let channelData { fields["channel_data"] = .string(channelData) }
        return .object(fields)
    }

    /// `data` with another `channel_data`.
    func replacing(channelData: JSONValue, in data: JSONValue) -> JSONValue {
        var fields = data.objectValue ?? [:]
        fields["channel_data"] = channelData
        return .object(fields)
    }

    func refused(_ decision: Decision) -> SubscriptionAdmission.Refusal? {
        if case .refused(let refusal) = decision { return refusal }
        return nil
    }

    func accepted(_ decision: Decision) -> SubscriptionAdmission.Admitted? {
        if case .admitted(let admitted) = decision { return admitted }
        return nil
    }

    // MARK: Names

    @Test func aPublicChannelIsAdmittedWithoutAuth() {
        let admitted = accepted(decide(["channel": "news"]))
        #expect(admitted == .init(channel: "news", kind: .public, member: nil, isUserChannel: false))
    }

    @Test func noChannelIsMalformed() {
        #expect(decide(nil) == .malformed(message: "pusher:subscribe needs data.channel"))
        #expect(decide(["auth": "x"]) == .malformed(message: "pusher:subscribe needs data.channel"))
    }

    @Test func anInvalidNameIsRefusedAsInvalidChannel400() throws {
        let refusal = try #require(refused(decide(["channel": "bad name!"])))
        #expect(refusal.type == "InvalidChannel")
        #expect(refusal.status == 400)
        #expect(refusal.message.hasPrefix("Invalid channel name 'bad name!': "))
    }

    @Test func aHugeNameIsRepeatedBackAsAnExcerpt() throws {
        let name = String(repeating: "a", count: 5_000)
        let refusal = try #require(refused(decide(["channel": .string(name)])))
        #expect(refusal.channel == ErrorText.excerpt(name))
        #expect(refusal.channel.count == ErrorText.maxEchoedCharacters + 1, "200 characters and an ellipsis")
    }

    @Test func aSecondSubscriptionToTheSameChannelIsADuplicate() {
        let decision = decide(["channel": "news"], subscriber: subscriber(channels: ["news"]))
        #expect(decision == .duplicate(message: "Existing subscription to channel news"))
    }

    // MARK: Server-to-user channels

    @Test func aUserChannelNeedsASignedInConnection() throws {
        let refusal = try #require(refused(decide(["channel": "#server-to-user-ann"])))
        #expect(refusal.type == "AuthError")
        #expect(refusal.status == 403)
        #expect(refusal.message.contains("needs a signed-in connection"))
    }

    @Test func aUserChannelOfAnotherUserIsRefused403() throws {
        let decision = decide(["channel": "#server-to-user-ann"], subscriber: subscriber(signedIn: "ben"))
        let refusal = try #require(refused(decision))
        #expect(refusal.status == 403)
        #expect(refusal.message == "Connection is signed in as ben; it cannot subscribe to #server-to-user-ann")
    }

    @Test func aUserChannelOfTheSignedInUserIsAdmitted() {
        let decision = decide(["channel": "#server-to-user-ann"], subscriber: subscriber(signedIn: "ann"))
        #expect(
            accepted(decision)
                == .init(
                    channel: "#server-to-user-ann", kind: .public, member: nil,
                    isUserChannel: true))
    }

    // MARK: Signatures

    @Test(arguments: ["private-room", "private-encrypted-vault", "presence-room"])
    func anAuthorizedChannelWithoutAuthIsRefused401(channel: String) throws {
        let refusal = try #require(refused(decide(["channel": .string(channel)])))
        #expect(refusal.type == "AuthError")
        #expect(refusal.status == 401)
        #expect(refusal.message == "Subscription to \(channel) needs an auth signature")
    }

    @Test func anAuthWithoutAColonIsRefused() throws {
        let refusal = try #require(refused(decide(["channel": "private-room", "auth": "nocolon"])))
        #expect(refusal.message.contains("should be of format 'key:signature'"))
        #expect(refusal.status == 401)
    }

    @Test func anAuthWithAnotherKeyIsRefused() throws {
        let refusal = try #require(refused(decide(["channel": "private-room", "auth": "other-key:abc"])))
        #expect(refusal.message == "Invalid key 'other-key' in auth value for subscription to private-room")
    }

    @Test func aWrongSignatureIsRefusedWithTheStringToSign() throws {
        let data = signed("private-room", socketID: "999.999")
        let refusal = try #require(refused(decide(data)))
        #expect(refusal.type == "AuthError")
        #expect(
            refusal.message.hasPrefix(
                "Invalid signature: Expected HMAC SHA256 hex digest of 123.456:private-room, but got "))
    }

    @Test func aSignedPrivateChannelIsAdmitted() {
        #expect(
            accepted(decide(signed("private-room")))
                == .init(
                    channel: "private-room", kind: .private, member: nil,
                    isUserChannel: false))
    }

    @Test func aPresenceSignatureCoversChannelData() throws {
        let data = replacing(
            channelData: .string(#"{"user_id":"eve"}"#),
            in: signed("presence-room", channelData: #"{"user_id":"ann"}"#))
        let refusal = try #require(refused(decide(data)))
        #expect(refusal.type == "AuthError")
    }

    // MARK: Presence members

    @Test func aSignedPresenceChannelIsAdmittedWithItsMember() throws {
        let channelData = #"{"user_id":"ann","user_info":{"name":"Ann"}}"#
        let admitted = try #require(accepted(decide(signed("presence-room", channelData: channelData))))
        #expect(admitted.member == .init(userID: "ann", info: ["name": "Ann"]))
        #expect(admitted.kind == .presence)
    }

    @Test func aNumericUserIDBecomesAString() throws {
        let admitted = try #require(accepted(decide(signed("presence-room", channelData: #"{"user_id":42}"#))))
        #expect(admitted.member?.userID == "42")
    }

    @Test(arguments: [
        ("not json", "needs channel_data holding a JSON object", 400),
        (#"{"user_info":{}}"#, "must have a user_id (string or number)", 400),
        (#"{"user_id":""}"#, "user_id must be 1 to 128 characters", 400),
    ])
    func badChannelDataIsAPresenceError(channelData: String, message: String, status: Int) throws {
        let refusal = try #require(refused(decide(signed("presence-room", channelData: channelData))))
        #expect(refusal.type == "PresenceError")
        #expect(refusal.status == status)
        #expect(refusal.message.contains(message))
    }

    @Test func userInfoOverTheLimitIsRefused413() throws {
        let info = JSONValue.object(["bio": .string(String(repeating: "x", count: 2_000))])
        let channelData = JSONValue.object(["user_id": "ann", "user_info": info]).jsonString
        let refusal = try #require(refused(decide(signed("presence-room", channelData: channelData))))
        #expect(refusal.status == 413)
        #expect(refusal.type == "PresenceError")
    }

    @Test func channelDataGivenAsAnObjectIsSignedAsItsJSON() throws {
        let object: JSONValue = ["user_id": "ann"]
        let data = replacing(channelData: object, in: signed("presence-room", channelData: object.jsonString))
        #expect(accepted(decide(data))?.member?.userID == "ann")
    }

    // MARK: The presence limit

    @Test func aNewMemberOfAFullChannelIsRefusedLimitReached403() throws {
        let dan = signed("presence-room", channelData: #"{"user_id":"dan"}"#)
        let refusal = try #require(refused(decide(dan, members: 3)))
        #expect(refusal.type == "LimitReached")
        #expect(refusal.status == 403)
        #expect(refusal.message == "Presence channel presence-room is full: the limit is 3 members")
    }

    @Test func aMemberAlreadyInAFullChannelMayOpenAnotherConnection() {
        let ann = signed("presence-room", channelData: #"{"user_id":"ann"}"#)
        let decision = decide(ann, members: 3, alreadyMember: true)
        #expect(accepted(decision) != nil)
    }

    @Test func inAClusterTheRegistryAppliesTheLimitNotTheNode() {
        let dan = signed("presence-room", channelData: #"{"user_id":"dan"}"#)
        let decision = decide(dan, members: 3, clusterDecides: true)
        #expect(accepted(decision)?.member?.userID == "dan")
    }

    @Test func belowTheLimitANewMemberIsAdmitted() {
        #expect(accepted(decide(signed("presence-room", channelData: #"{"user_id":"dan"}"#), members: 2)) != nil)
    }
}
