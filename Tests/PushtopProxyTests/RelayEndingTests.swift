import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOWebSocket
import PusherProtocol
import PushtopServer
import Testing

@testable import PushtopProxy

/// How a relayed connection ends (issue 38, point 4), through a real ``Relay`` and its two ``RelayEnd`` handlers on
/// `EmbeddedChannel`s: the close frames each side receives, which socket the relay closes, what the `disconnection`
/// row is told, and that the relay, its ends and their pipelines are freed. The transitions themselves are tested as
/// a value in `RelayStateMachineTests`.
@Suite struct RelayEndingTests {
    /// A relay with its two ends on embedded channels (the client's end as the proxy's server side, the upstream's
    /// as its client side), on one embedded loop.
    struct Wired {
        let loop: EmbeddedEventLoop
        let relay: Relay
        let client: EmbeddedChannel
        let upstream: EmbeddedChannel

        init() throws {
            loop = EmbeddedEventLoop()
            let core = try ProxyCore(
                configuration: ProxyConfiguration(port: 0, upstream: "ws://127.0.0.1:1"),
                logger: Logger(label: "test.relay"))
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/app/key?protocol=7")
            relay = Relay(
                core: core, eventLoop: loop, number: 1,
                info: ConsoleConnectionInfo(head: head, query: URLQuery(), remote: nil), protocolVersion: 7)
            upstream = EmbeddedChannel(loop: loop)
            client = EmbeddedChannel(loop: loop)
            try upstream.connect(to: .init(ipAddress: "127.0.0.1", port: 1)).wait()
            try client.connect(to: .init(ipAddress: "127.0.0.1", port: 2)).wait()
            try upstream.pipeline.syncOperations.addHandler(
                RelayEnd(side: .upstream, relay: relay, maxMessageBytes: 1 << 20))
            try client.pipeline.syncOperations.addHandler(
                RelayEnd(side: .client, relay: relay, maxMessageBytes: 1 << 20))
        }

        /// A client's close frame (masked, as a client's must be).
        static func clientClose(_ code: UInt16, _ reason: String) -> WebSocketFrame {
            let mask = WebSocketMaskingKey.random()
            var payload = closePayload(code, reason)
            payload.webSocketMask(mask)
            return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: mask, data: payload)
        }

        /// The upstream's close frame (not masked, as a server's).
        static func upstreamClose(_ code: UInt16, _ reason: String) -> WebSocketFrame {
            WebSocketFrame(fin: true, opcode: .connectionClose, data: closePayload(code, reason))
        }

        static func closePayload(_ code: UInt16, _ reason: String) -> ByteBuffer {
            var payload = ByteBuffer()
            payload.writeInteger(code)
            payload.writeString(reason)
            return payload
        }

        /// The close frames written to `channel` so far: (code, reason).
        static func closesWritten(_ channel: EmbeddedChannel) throws -> [(Int, String)] {
            try framesWritten(channel).compactMap { frame in
                guard frame.opcode == .connectionClose else { return nil }
                // As written: the frame encoder masks the upstream's frames on the wire, with the frame's key.
                var data = frame.data
                let code = data.readInteger(as: UInt16.self).map(Int.init) ?? 0
                return (code, data.readString(length: data.readableBytes) ?? "")
            }
        }

        /// Every frame written to `channel` since the last look.
        static func framesWritten(_ channel: EmbeddedChannel) throws -> [WebSocketFrame] {
            var frames: [WebSocketFrame] = []
            while let frame = try channel.readOutbound(as: WebSocketFrame.self) { frames.append(frame) }
            return frames
        }

        /// Lets the loop run what it was asked to do later: a pipeline's teardown after its channel closed, and the
        /// close grace's drop (which holds its end until it fires).
        func settle() {
            loop.advanceTime(by: .seconds(2))
            loop.run()
        }

        var bothClosed: Bool { !client.isActive && !upstream.isActive }
    }

    /// Runs `scenario` on a fresh relay, lets go of it, and says whether the relay and its two ends were freed.
    static func freedAfter(_ scenario: (Wired) throws -> Void) throws -> Bool {
        weak var relay: Relay?
        weak var clientEnd: RelayEnd?
        weak var upstreamEnd: RelayEnd?
        do {
            let wired = try Wired()
            relay = wired.relay
            clientEnd = wired.relay.client
            upstreamEnd = wired.relay.upstream
            try scenario(wired)
            wired.settle()
        }
        return relay == nil && clientEnd == nil && upstreamEnd == nil
    }

    @Test func messagesPassBothWaysUntilAStall() throws {
        let wired = try Wired()
        try wired.upstream.writeInbound(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "{}")))
        #expect(try Wired.framesWritten(wired.client).map(\.opcode) == [.text])
        wired.relay.handle(.stall)
        try wired.upstream.writeInbound(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "{}")))
        #expect(try Wired.framesWritten(wired.client).isEmpty, "a stalled relay passes nothing")
        #expect(wired.client.isActive && wired.upstream.isActive, "and keeps both sockets")
        _ = try? wired.client.finish()
        _ = try? wired.upstream.finish()
    }

    @Test func aClientsCloseFrameReachesTheUpstreamWithItsCodeOnEmbeddedChannels() throws {
        let wired = try Wired()
        try wired.client.writeInbound(Wired.clientClose(4000, "going"))
        let toUpstream = try Wired.closesWritten(wired.upstream)
        let toClient = try Wired.closesWritten(wired.client)
        #expect(toUpstream.map(\.0) == [4000] && toUpstream.first?.1 == "going")
        #expect(toClient.map(\.0) == [4000], "the client's close is answered with its code")
        #expect(wired.relay.lifecycle.disconnection == .init(by: .client, code: 4000, reason: "going"))
        _ = try? wired.client.finish()
        _ = try? wired.upstream.finish()
    }

    /// Was: the relay, its two ends and their pipelines held one another for good once both sockets had closed, so
    /// every relayed connection stayed in the proxy's memory (LeakSanitizer's report in `scripts/sanitize`).
    @Test func aRelayIsFreedOnceBothItsChannelsClose() throws {
        let freed = try Self.freedAfter { wired in
            try wired.client.writeInbound(Wired.clientClose(1000, "bye"))
            _ = try? wired.client.finish()
            _ = try? wired.upstream.finish()
        }
        #expect(freed, "the relay or one of its ends outlived both its channels")
    }

    @Test func theClientClosesFirst() throws {
        let freed = try Self.freedAfter { wired in
            try wired.client.writeInbound(Wired.clientClose(4000, "going"))
            #expect(try Wired.closesWritten(wired.upstream).map { "\($0.0) \($0.1)" } == ["4000 going"])
            #expect(try Wired.closesWritten(wired.client).map(\.0) == [4000])
            // Both close frames of the client's end went: its socket is closed at once.
            #expect(!wired.client.isActive)
            #expect(wired.upstream.isActive, "the upstream's answer may still come")
            try wired.upstream.writeInbound(Wired.upstreamClose(4000, ""))
            #expect(wired.bothClosed)
            #expect(wired.relay.lifecycle.state == .closed)
            #expect(wired.relay.lifecycle.disconnection == .init(by: .client, code: 4000, reason: "going"))
        }
        #expect(freed, "the relay outlived its ending")
    }

    @Test func theUpstreamClosesFirstAndAClientThatNeverAnswersIsDroppedAfterTheGrace() throws {
        let freed = try Self.freedAfter { wired in
            try wired.upstream.writeInbound(Wired.upstreamClose(4200, "Generic reconnect immediately"))
            #expect(
                try Wired.closesWritten(wired.client).map { "\($0.0) \($0.1)" } == [
                    "4200 Generic reconnect immediately"
                ])
            #expect(try Wired.closesWritten(wired.upstream).map(\.0) == [4200])
            #expect(!wired.upstream.isActive, "the upstream had both close frames")
            #expect(wired.client.isActive, "the client's answer may still come")
            wired.loop.advanceTime(by: .seconds(2))
            #expect(wired.bothClosed)
            #expect(
                wired.relay.lifecycle.disconnection
                    == .init(by: .server, code: 4200, reason: "Generic reconnect immediately"))
        }
        #expect(freed)
    }

    @Test func theUpstreamClosesFirstAndTheClientAnswers() throws {
        let freed = try Self.freedAfter { wired in
            try wired.upstream.writeInbound(Wired.upstreamClose(4201, "Pong reply not received"))
            try wired.client.writeInbound(Wired.clientClose(4201, ""))
            #expect(wired.bothClosed, "closed without waiting for the grace")
            #expect(try Wired.closesWritten(wired.client).map(\.0) == [4201])
            #expect(try Wired.closesWritten(wired.upstream).map(\.0) == [4201], "the upstream was answered, once")
            #expect(wired.relay.lifecycle.disconnection?.by == .timeout)
        }
        #expect(freed)
    }

    @Test func bothCloseAtOnce() throws {
        let freed = try Self.freedAfter { wired in
            try wired.client.writeInbound(Wired.clientClose(1000, "client"))
            // The upstream's own close crosses the one the relay passed on.
            try wired.upstream.writeInbound(Wired.upstreamClose(1001, "upstream"))
            #expect(try Wired.closesWritten(wired.upstream).map { "\($0.0) \($0.1)" } == ["1000 client"])
            #expect(try Wired.closesWritten(wired.client).map(\.0) == [1000], "one close frame each")
            #expect(wired.bothClosed)
            #expect(wired.relay.lifecycle.disconnection == .init(by: .client, code: 1000, reason: "client"))
        }
        #expect(freed)
    }

    /// A side whose socket drops (no close frame) takes the other side's socket down without a close frame either.
    @Test(arguments: [true, false]) func aSideThatDropsTakesTheOthersSocketWithoutACloseFrame(clientDrops: Bool) throws
    {
        let freed = try Self.freedAfter { wired in
            let (dropping, other) = clientDrops ? (wired.client, wired.upstream) : (wired.upstream, wired.client)
            _ = try? dropping.close().wait()
            #expect(wired.bothClosed)
            let closes = try Wired.closesWritten(other)
            #expect(closes.isEmpty, "as the dropping side did: no close frame")
            #expect(wired.relay.lifecycle.state == .closed)
            #expect(wired.relay.lifecycle.disconnection?.code == 1006)
            #expect(wired.relay.lifecycle.disconnection?.by == (clientDrops ? .client : .server))
        }
        #expect(freed)
    }

    @Test func aCloseFaultClosesTheClientWithItsCodeAndTheUpstreamWith1001() throws {
        let freed = try Self.freedAfter { wired in
            wired.relay.handle(.faultClose(code: 4200, reason: "Generic reconnect immediately"))
            #expect(
                try Wired.closesWritten(wired.client).map { "\($0.0) \($0.1)" } == [
                    "4200 Generic reconnect immediately"
                ])
            #expect(try Wired.closesWritten(wired.upstream).map(\.0) == [1001])
            // Whatever the upstream still sends is not relayed.
            try wired.upstream.writeInbound(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "{}")))
            #expect(try Wired.framesWritten(wired.client).isEmpty)
            try wired.client.writeInbound(Wired.clientClose(4200, ""))
            try wired.upstream.writeInbound(Wired.upstreamClose(1001, ""))
            #expect(wired.bothClosed)
            #expect(wired.relay.lifecycle.disconnection?.code == 4200)
            #expect(wired.relay.lifecycle.disconnection?.by == .server)
        }
        #expect(freed)
    }

    @Test func aDropClosesTheClientsSocketWithoutACloseFrame() throws {
        let freed = try Self.freedAfter { wired in
            wired.relay.handle(.stall)
            wired.relay.dropClient()
            #expect(!wired.client.isActive)
            let toClient = try Wired.closesWritten(wired.client)
            #expect(toClient.isEmpty, "dropped: no close frame")
            let toUpstream = try Wired.closesWritten(wired.upstream)
            #expect(toUpstream.map(\.0) == [1001])
            #expect(wired.relay.clientEnded)
            // The upstream never answers: its socket goes after the grace.
            wired.loop.advanceTime(by: .seconds(2))
            #expect(wired.bothClosed)
            #expect(
                wired.relay.lifecycle.disconnection
                    == .init(by: .server, code: 1006, reason: RelayStateMachine.dropReason))
        }
        #expect(freed)
    }

    @Test func aLateFaultOnAClosingRelayChangesNothing() throws {
        let wired = try Wired()
        try wired.client.writeInbound(Wired.clientClose(1000, "bye"))
        _ = try Wired.closesWritten(wired.upstream)
        _ = try Wired.closesWritten(wired.client)
        wired.relay.handle(.faultClose(code: 4200, reason: "late"))
        #expect(try Wired.closesWritten(wired.upstream).isEmpty && Wired.closesWritten(wired.client).isEmpty)
        #expect(wired.relay.lifecycle.disconnection?.code == 1000)
        _ = try? wired.client.finish()
        _ = try? wired.upstream.finish()
    }

    @Test func anUpstreamThatBreaksTheProtocolIsFailedAndTheClientGets1011OnEmbeddedChannels() throws {
        let wired = try Wired()
        // RSV1 on a ping, and no extension agreed: the upstream's end fails with 1002.
        try wired.upstream.writeInbound(
            WebSocketFrame(fin: true, rsv1: true, opcode: .ping, data: ByteBuffer()))
        #expect(try Wired.closesWritten(wired.upstream).map(\.0) == [1002])
        #expect(try Wired.closesWritten(wired.client).map(\.0) == [1011])
        #expect(!wired.relay.relays)
        _ = try? wired.client.finish()
        _ = try? wired.upstream.finish()
    }
}
