import NIOCore
import NIOHTTP1
import Testing

@testable import PushtopProxy

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the proxy asks of the upstream for a client's upgrade, and how it tells running out of file descriptors.
@Suite struct UpstreamRequestTests {
    @Test func deflateIsAskedOfTheUpstreamOnlyWhenTheClientOfferedIt() {
        #expect(!UpstreamDialer.offersDeflate(HTTPHeaders()))
        #expect(!UpstreamDialer.offersDeflate(HTTPHeaders([("Sec-WebSocket-Extensions", "x-webkit-deflate-frame")])))
        #expect(
            UpstreamDialer.offersDeflate(
                HTTPHeaders([("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits")])))
        // A list of offers, in either header line, in any case.
        #expect(
            UpstreamDialer.offersDeflate(
                HTTPHeaders([
                    ("Sec-WebSocket-Extensions", "foo"), ("sec-websocket-extensions", "bar, PerMessage-Deflate ;x=1"),
                ])))
    }

    @Test func runningOutOfFileDescriptorsIsToldApartFromOtherFailures() {
        #expect(OpenFiles.exhausted(by: IOError(errnoCode: EMFILE, reason: "socket")))
        #expect(OpenFiles.exhausted(by: IOError(errnoCode: ENFILE, reason: "accept")))
        #expect(!OpenFiles.exhausted(by: IOError(errnoCode: ECONNREFUSED, reason: "connect")))
        #expect(!OpenFiles.exhausted(by: ChannelError.ioOnClosedChannel))
    }

    @Test func theWarningComesOnceAnIntervalAndNamesTheLimit() throws {
        let files = OpenFiles(warningInterval: .seconds(10))
        let first = try #require(files.warning(nowMs: 1_000_000, openConnections: 42))
        #expect(first.contains("out of open files") && first.contains("42 open") && first.contains("ulimit -n"))
        if let limit = OpenFiles.limit { #expect(first.contains("limit \(limit)")) }
        #expect(files.warning(nowMs: 1_005_000, openConnections: 43) == nil)
        #expect(files.warning(nowMs: 1_010_000, openConnections: 44) != nil)
    }
}

/// The relay's cheap look at an upstream message before deciding to decode it.
@Suite struct UpstreamPeekTests {
    @Test func theProtocolsOwnMessagesAreFoundAnywhereInTheBytes() {
        func has(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBytes { Relay.contains($0, Array("pusher".utf8)) }
        }
        #expect(has(#"{"event":"pusher:connection_established","data":"{}"}"#))
        #expect(has(#"{"channel":"a","event":"pusher_internal:subscription_succeeded"}"#))
        #expect(has("pusher"))
        #expect(!has(#"{"event":"tick","channel":"news","data":"1"}"#))
        #expect(!has("pushe"))
        #expect(!has(""))
        #expect(has("ppusher"))
    }
}
