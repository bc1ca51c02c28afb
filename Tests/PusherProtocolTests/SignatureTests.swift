import Testing

@testable import PusherProtocol

/// The worked examples of Pusher's "Generating authentication and authorization strings".
@Suite struct SignatureTests {
    let key = "278d425bdf160c739803"
    let secret = "7ad3773142a6692b25b8"

    @Test func privateChannelWorkedExample() {
        let auth = ChannelAuthSignature.auth(key: key, secret: secret, socketID: "1234.1234", channel: "private-foobar")
        #expect(auth == "278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4")
    }

    @Test func presenceChannelWorkedExample() {
        let data = #"{"user_id":10,"user_info":{"name":"Mr. Channels"}}"#
        let auth = ChannelAuthSignature.auth(
            key: key, secret: secret, socketID: "1234.1234", channel: "presence-foobar", channelData: data)
        #expect(auth == "278d425bdf160c739803:31935e7d86dba64c2a90aed31fdc61869f9b22ba9d8863bba239c03ca481bc80")
    }

    @Test func verifyAcceptsOnlyTheRightSignature() {
        let good = ChannelAuthSignature.auth(key: key, secret: secret, socketID: "1.2", channel: "private-x")
        #expect(
            ChannelAuthSignature.verify(auth: good, key: key, secret: secret, socketID: "1.2", channel: "private-x"))
        #expect(
            !ChannelAuthSignature.verify(auth: good, key: key, secret: secret, socketID: "1.3", channel: "private-x"))
        #expect(
            !ChannelAuthSignature.verify(
                auth: good + "0", key: key, secret: secret, socketID: "1.2", channel: "private-x"))
    }

    /// The HTTP API reference's example: POST /apps/3/events with this body, key, secret and timestamp.
    @Test func httpAPIWorkedExample() {
        let body = #"{"name":"foo","channels":["project-3"],"data":"{\"some\":\"data\"}"}"#
        let params = APIRequestSignature.sign(
            method: "POST", path: "/apps/3/events", key: "278d425bdf160c739803", secret: "7ad3773142a6692b25b8",
            body: Array(body.utf8), timestamp: 1_353_088_179)
        #expect(params["body_md5"] == "ec365a775a4cd0599faeb73354201b6f")
        #expect(params["auth_signature"] == "da454824c97ba181a32ccc17a72625ba02771f50b50e1e7430e47a1f3f457e6c")
    }
}
