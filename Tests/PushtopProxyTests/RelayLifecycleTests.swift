import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOWebSocket
import PusherProtocol
import PushtopServer
import Testing

@testable import PushtopProxy

/// How a relayed connection ends (issue 38, point 4): the transitions of ``RelayLifecycle`` as a value, then the
/// same rules through a real ``Relay`` and its two ``RelayEnd`` handlers on `EmbeddedChannel`s.
@Suite struct RelayLifecycleTests {
    /// Both ends attached, as after a successful upgrade.
    static func open() -> RelayLifecycle {
        var lifecycle = RelayLifecycle()
        _ = lifecycle.attached(.upstream)
        _ = lifecycle.attached(.client)
        return lifecycle
    }

    @Test func aClientsCloseIsPassedOnAnsweredAndBothSocketsEnd() {
        var l = Self.open()
        #expect(
            l.closeReceived(from: .client, code: 1000, reason: "bye") == [
                .sendClose(.upstream, code: 1000, reason: "bye"), .sendClose(.client, code: 1000, reason: ""),
            ])
        #expect(l.closing == .init(by: .client, code: 1000, reason: "bye"))
        // The upstream answers: its socket ends at once (both close frames went), the reason stays the client's.
        #expect(l.closeReceived(from: .upstream, code: 1000, reason: "") == [.drop(.upstream)])
        #expect(l.closing?.by == .client)
        #expect(l.closeWritten(.client) == [.drop(.client)])
    }

    @Test func aCloseFrameWrittenToAnEndThatHasNotClosedWaitsForTheGrace() {
        var l = Self.open()
        _ = l.closeReceived(from: .client, code: 1001, reason: "")
        #expect(l.closeWritten(.upstream) == [.dropAfterGrace(.upstream)])
    }

    @Test func theUpstreamsRefusalBeforeTheClientsEndIsAttachedStillReachesTheClient() {
        var l = RelayLifecycle()
        _ = l.attached(.upstream)
        #expect(
            l.closeReceived(from: .upstream, code: 4001, reason: "App key not in this cluster") == [
                .sendClose(.upstream, code: 4001, reason: "")
            ])
        #expect(
            l.attached(.client) == [
                .releaseEarlyMessages, .sendClose(.client, code: 4001, reason: "App key not in this cluster"),
                .flush(.client), .fireWaitingFaults,
            ])
        #expect(l.closing == .init(by: .server, code: 4001, reason: "App key not in this cluster"))
    }

    @Test func anUpstreamGoneBeforeTheClientsEndIsAttachedDropsTheClientAfterWhatCameBefore() {
        var l = RelayLifecycle()
        _ = l.attached(.upstream)
        #expect(l.ended(.upstream).isEmpty)
        #expect(l.attached(.client) == [.releaseEarlyMessages, .flush(.client), .drop(.client)])
        #expect(l.closing?.code == 1006)
    }

    @Test func aClientThatDropsTakesTheUpstreamsSocketAndIsReportedOnce() {
        var l = Self.open()
        #expect(l.ended(.client) == [.drop(.upstream), .reportDisconnection])
        #expect(l.closing == .init(by: .client, code: 1006, reason: nil))
        #expect(l.ended(.client).isEmpty)
        // The upstream's end that follows changes nothing that was said.
        #expect(l.ended(.upstream).isEmpty)
        #expect(l.closing?.by == .client)
    }

    @Test func anUpstreamThatDropsDropsTheClient() {
        var l = Self.open()
        #expect(l.ended(.upstream) == [.drop(.client)])
        #expect(l.closing?.by == .server)
        #expect(l.ended(.client) == [.reportDisconnection])
    }

    @Test func aProtocolFailureFailsThatEndClosesTheOtherAndStopsTheRelay() {
        var l = Self.open()
        #expect(
            l.protocolFailure(.upstream, code: 1002, reason: "RSV1 is set on a ping frame") == [
                .sendClose(.upstream, code: 1002, reason: "RSV1 is set on a ping frame"),
                .sendClose(.client, code: 1011, reason: "The upstream broke the WebSocket protocol"),
            ])
        #expect(l.stalled)
        #expect(l.closing == .init(by: .server, code: 1011, reason: "upstream: RSV1 is set on a ping frame"))
        var c = Self.open()
        #expect(
            c.protocolFailure(.client, code: 1007, reason: "Text message is not valid UTF-8") == [
                .sendClose(.client, code: 1007, reason: "Text message is not valid UTF-8"),
                .sendClose(.upstream, code: 1001, reason: ""),
            ])
        #expect(c.closing?.by == .client)
    }

    @Test func aCloseFaultSpeaksForTheServerWhateverCameBefore() {
        var l = Self.open()
        _ = l.closeReceived(from: .client, code: 1000, reason: "")
        var m = Self.open()
        #expect(
            m.faultClose(code: 4200, reason: "Generic reconnect immediately") == [
                .sendClose(.upstream, code: 1001, reason: ""),
                .sendClose(.client, code: 4200, reason: "Generic reconnect immediately"),
            ])
        #expect(m.closing == .init(by: .server, code: 4200, reason: "Generic reconnect immediately"))
        var d = Self.open()
        #expect(
            d.faultClose(code: 1006, reason: "dropped") == [
                .sendClose(.upstream, code: 1001, reason: ""), .drop(.client),
            ])
        #expect(d.stalled)
    }

    @Test(
        arguments: [(4201, ConsoleClosedBy.timeout), (4100, .slowConsumer), (4009, .server), (nil, .server)]
            as [(Int?, ConsoleClosedBy)])
    func theUpstreamsCodeSaysWhoClosed(_ code: Int?, _ by: ConsoleClosedBy) {
        var l = Self.open()
        _ = l.closeReceived(from: .upstream, code: code, reason: "")
        #expect(l.closing?.by == by)
        #expect(l.closing?.code == code ?? 1005)
    }

    @Test func noCloseFrameGoesTwiceToAnEnd() {
        var l = Self.open()
        _ = l.protocolFailure(.client, code: 1002, reason: "x")
        // Whatever comes after, the client's and the upstream's close frames were already sent.
        let after = l.closeReceived(from: .upstream, code: 1000, reason: "") + l.faultClose(code: 4200, reason: "")
        #expect(!after.contains { if case .sendClose = $0 { return true } else { return false } })
    }

    // MARK: - Through a real relay, on EmbeddedChannels

    /// A relay with its two ends on embedded channels (the client's end as the proxy's server side, the upstream's
    /// as its client side).
    struct Wired {
        let relay: Relay
        let client: EmbeddedChannel
        let upstream: EmbeddedChannel

        init() throws {
            let loop = EmbeddedEventLoop()
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
            var payload = ByteBuffer()
            payload.writeInteger(code)
            payload.writeString(reason)
            let mask = WebSocketMaskingKey.random()
            payload.webSocketMask(mask)
            return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: mask, data: payload)
        }

        /// The close frames written to `channel` so far: (code, reason).
        static func closesWritten(_ channel: EmbeddedChannel) throws -> [(Int, String)] {
            var closes: [(Int, String)] = []
            while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
                guard frame.opcode == .connectionClose else { continue }
                // As written: the frame encoder masks the upstream's frames on the wire, with the frame's key.
                var data = frame.data
                let code = data.readInteger(as: UInt16.self).map(Int.init) ?? 0
                closes.append((code, data.readString(length: data.readableBytes) ?? ""))
            }
            return closes
        }
    }

    @Test func aClientsCloseFrameReachesTheUpstreamWithItsCodeOnEmbeddedChannels() throws {
        let wired = try Wired()
        try wired.client.writeInbound(Wired.clientClose(4000, "going"))
        let toUpstream = try Wired.closesWritten(wired.upstream)
        let toClient = try Wired.closesWritten(wired.client)
        #expect(toUpstream.map(\.0) == [4000] && toUpstream.first?.1 == "going")
        #expect(toClient.map(\.0) == [4000], "the client's close is answered with its code")
        #expect(wired.relay.lifecycle.closing == .init(by: .client, code: 4000, reason: "going"))
        _ = try? wired.client.finish()
        _ = try? wired.upstream.finish()
    }

    /// Was: the relay, its two ends and their pipelines held one another for good once both sockets had closed, so
    /// every relayed connection stayed in the proxy's memory (LeakSanitizer's report in `scripts/sanitize`).
    @Test func aRelayIsFreedOnceBothItsChannelsClose() throws {
        weak var relay: Relay?
        weak var clientEnd: RelayEnd?
        weak var upstreamEnd: RelayEnd?
        do {
            let wired = try Wired()
            relay = wired.relay
            clientEnd = wired.relay.client
            upstreamEnd = wired.relay.upstream
            try wired.client.writeInbound(Wired.clientClose(1000, "bye"))
            _ = try? wired.client.finish()
            _ = try? wired.upstream.finish()
        }
        #expect(clientEnd == nil, "the client's end outlived its channel")
        #expect(upstreamEnd == nil, "the upstream's end outlived its channel")
        #expect(relay == nil, "the relay outlived both its channels")
    }

    @Test func anUpstreamThatBreaksTheProtocolIsFailedAndTheClientGets1011OnEmbeddedChannels() throws {
        let wired = try Wired()
        // RSV1 on a ping, and no extension agreed: the upstream's end fails with 1002.
        try wired.upstream.writeInbound(
            WebSocketFrame(fin: true, rsv1: true, opcode: .ping, data: ByteBuffer()))
        #expect(try Wired.closesWritten(wired.upstream).map(\.0) == [1002])
        #expect(try Wired.closesWritten(wired.client).map(\.0) == [1011])
        #expect(wired.relay.stalled)
        _ = try? wired.client.finish()
        _ = try? wired.upstream.finish()
    }
}
