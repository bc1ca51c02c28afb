import PusherProtocol
import Testing

@testable import PushtopCLI

/// Each documented webhook event becomes the console row a user expects, with `"source":"webhook"`.
@Suite struct WebhookRowsTests {
    static func row(_ json: String) -> ConsoleRow? {
        WebhookRows.row(for: JSONValue.parseIfJSON(json)!, timeMs: 1000, appID: "7", remoteAddress: "10.0.0.1:5")
    }

    @Test func lifecycleEvents() throws {
        let occupied = try #require(Self.row(#"{"name":"channel_occupied","channel":"orders"}"#))
        #expect(occupied.type == .occupied)
        #expect(occupied.channel == "orders")
        #expect(occupied.event == "channel_occupied")
        #expect(occupied.source == .webhook)
        #expect(occupied.appID == "7")
        #expect(occupied.timeMs == 1000)
        #expect(occupied.remoteAddress == "10.0.0.1:5")
        #expect(Self.row(#"{"name":"channel_vacated","channel":"orders"}"#)?.type == .vacated)
    }

    @Test func presenceEvents() throws {
        for name in ["member_added", "member_removed"] {
            let row = try #require(Self.row(#"{"name":"\#(name)","channel":"presence-room","user_id":"u1"}"#))
            #expect(row.type == .presenceEvent)
            #expect(row.event == name)
            #expect(row.userID == "u1")
            #expect(row.channel == "presence-room")
        }
    }

    @Test func clientEvent() throws {
        let row = try #require(
            Self.row(
                #"{"name":"client_event","channel":"private-chat","event":"client-typing","data":"{\"on\":true}","socket_id":"1.2","user_id":"u9"}"#
            ))
        #expect(row.type == .clientEvent)
        #expect(row.event == "client-typing")
        #expect(row.data == #"{"on":true}"#)
        #expect(row.dataBytes == 11)
        #expect(row.socketID == "1.2")
        #expect(row.userID == "u9")
        #expect(row.jsonLine.contains(#""source":"webhook""#))
    }

    @Test func subscriptionCountAndCacheMiss() throws {
        let count = try #require(
            Self.row(#"{"name":"subscription_count","channel":"c","subscription_count":12}"#))
        #expect(count.type == .subscriptionCount)
        #expect(count.subscriptionCount == 12)
        let miss = try #require(Self.row(#"{"name":"cache_miss","channel":"cache-prices"}"#))
        #expect(miss.type == .subscribed)
        #expect(miss.event == "cache_miss")
        #expect(Self.row(#"{"name":"something_else","channel":"c"}"#) == nil)
    }

    @Test func forwardedRequestsKeepTheirPathAndHeaders() {
        #expect(
            WebhookForwarder.url(target: "http://app:8000", uri: "/pusher/webhooks?x=1")
                == "http://app:8000/pusher/webhooks?x=1")
        #expect(WebhookForwarder.url(target: "http://app:8000/base/", uri: "/hook") == "http://app:8000/base/hook")
        let passed = WebhookForwarder.passedHeaders([
            ("Host", "pushtop:9000"), ("X-Pusher-Key", "k"), ("Connection", "keep-alive, X-Hop"), ("X-Hop", "1"),
            ("content-length", "10"), ("X-Pusher-Signature", "ab"), ("Transfer-Encoding", "chunked"),
        ])
        #expect(passed.map(\.0) == ["X-Pusher-Key", "X-Pusher-Signature"])
    }
}
