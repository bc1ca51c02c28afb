import NIOCore
import PusherProtocol
import Testing

@testable import PushtopProxy

/// The proxy tells clients a shorter `activity_timeout` when asked (`conform --client`), keeping the rest of
/// `pusher:connection_established` as the upstream sent it.
@Suite("Proxy: the announced activity_timeout")
struct AnnouncedActivityTimeoutTests {
    static func message(_ text: String) throws -> PusherMessage {
        var decoder = PusherFrameDecoder()
        var copy = text
        return try copy.withUTF8 { bytes in try decoder.decode(UnsafeRawBufferPointer(bytes)) }
    }

    @Test func aLongerTimeoutIsLoweredAndTheSocketIDKept() throws {
        let established = try Self.message(
            #"{"event":"pusher:connection_established","data":"{\"socket_id\":\"1.2\",\"activity_timeout\":120}"}"#)
        let rewritten = try #require(Relay.announcing(activityTimeout: 5, in: established))
        let again = try Self.message(String(buffer: rewritten))
        #expect(again.event == "pusher:connection_established")
        #expect(again.dataJSON?["activity_timeout"]?.intValue == 5)
        #expect(again.dataJSON?["socket_id"]?.stringValue == "1.2")
    }

    @Test func aShorterOrEqualTimeoutIsLeftAlone() throws {
        let established = try Self.message(
            #"{"event":"pusher:connection_established","data":"{\"socket_id\":\"1.2\",\"activity_timeout\":3}"}"#)
        #expect(Relay.announcing(activityTimeout: 5, in: established) == nil)
        #expect(Relay.announcing(activityTimeout: 3, in: established) == nil)
    }
}
