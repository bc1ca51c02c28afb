import Foundation
import PushtopTestSupport
import Synchronization
import Testing

@testable import PusherChannels

/// The event-loop transport over real loopback sockets: bursts, the frame tap, WebSocket pings, permessage-deflate,
/// the close handshake, frames for channels the client left (TLS with a private CA: PusherChannelsEndToEndTests).
@Suite(.timeLimit(.minutes(1))) struct TransportTests {
    /// A scripted server and a client of it (not connected) with a frame tap and a recorder.
    func tapped() async throws
        -> (server: ScriptedPusherServer, client: PusherClient, tap: FrameTapRecorder, recorder: EventRecorder)
    {
        let server = try await ScriptedPusherServer.start()
        let client = makeClient(port: server.port)
        return (server, client, FrameTapRecorder(client), EventRecorder(client))
    }

    func makeClient(port: Int, keepRawFrames: Bool = false) -> PusherClient {
        .loopbackTestClient(port: port, keepRawFrames: keepRawFrames)
    }

    @Test func aBurstOfFramesArrivesInOrderAsFewBatches() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let client = makeClient(port: server.port)
        let batches = client.eventBatches()
        let sizes = Mutex<[Int]>([])
        let names = Mutex<[String]>([])
        let consumer = Task {
            for await batch in batches {
                let events = batch.compactMap { if case .event(let e) = $0 { return e.name } else { return nil } }
                if !events.isEmpty { sizes.withLock { $0.append(events.count) } }
                names.withLock { $0 += events }
            }
        }
        try await client.subscribe("ticker")
        await client.connect()
        let conn = try await server.connection(1)
        try await conn.waitForMessage { $0.event == "pusher:subscribe" }
        for i in 0..<2000 { conn.send(PusherMessage(event: "e\(i)", channel: "ticker", data: .string("{}"))) }
        try await waitUntil { names.withLock { $0.count } == 2000 }
        #expect(names.withLock { $0 } == (0..<2000).map { "e\($0)" })
        // Each read burst is handed over whole: far fewer batches than frames.
        #expect(sizes.withLock { $0.count } < 1000)
        await client.shutdown()
        consumer.cancel()
    }

    @Test func theFrameTapShowsBothDirectionsExactlyAndEventsCarryTheirFrame() async throws {
        let (server, client, tap, recorder) = try await tapped()
        defer { server.stop() }
        try await client.subscribe("ticker")
        await client.connect()
        try await recorder.wait { $0.isSubscribed("ticker") }
        let text = #"{"event":"price","channel":"ticker","data":"{\"p\": 1.50}"}"#
        try await server.connection(1).send(text)
        try await waitUntil { recorder.channelEvents.count == 1 }
        #expect(recorder.channelEvents[0].rawFrame == text, "the event carries its frame's exact text")
        try await waitUntil { tap.all.contains { $0.text == text } }
        let frames = tap.all
        let inbound = frames.first { $0.text == text }!
        #expect(inbound.direction == .inbound && inbound.kind == .text && inbound.size == text.utf8.count)
        #expect(
            frames.contains {
                $0.direction == .outbound && $0.kind == .text
                    && $0.text == #"{"event":"pusher:subscribe","data":{"channel":"ticker"}}"#
            })
        #expect(frames.first?.text.contains("pusher:connection_established") == true)
        await client.disconnect()
        try await waitUntil {
            tap.all.contains { $0.direction == .outbound && $0.kind == .close && $0.closeCode == 1000 }
        }
    }

    @Test func withoutATapEventsDoNotKeepTheirFrameUnlessAsked() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        for keep in [false, true] {
            let client = makeClient(port: server.port, keepRawFrames: keep)
            let recorder = EventRecorder(client)
            try await client.subscribe("ticker")
            await client.connect()
            try await recorder.wait { $0.isSubscribed("ticker") }
            let conn = try await server.connection(keep ? 2 : 1)
            conn.send(PusherMessage(event: "price", channel: "ticker", data: .string("{}")))
            try await waitUntil { recorder.channelEvents.count == 1 }
            #expect((recorder.channelEvents[0].rawFrame != nil) == keep)
            await client.shutdown()
        }
    }

    @Test func webSocketPingsAreAnsweredAndTapped() async throws {
        let server = try await ScriptedPusherServer.start(transport: .init(autoPing: .milliseconds(300)))
        defer { server.stop() }
        let client = makeClient(port: server.port)
        let tap = FrameTapRecorder(client)
        let recorder = EventRecorder(client)
        await client.connect()
        try await recorder.waitForState(.connected)
        try await waitUntil { tap.all.filter { $0.kind == .pong && $0.direction == .outbound }.count >= 2 }
        let frames = tap.all
        let pings = Set(frames.filter { $0.kind == .ping && $0.direction == .inbound }.map(\.text))
        let pongs = frames.filter { $0.kind == .pong && $0.direction == .outbound }.map(\.text)
        #expect(!pings.isEmpty && pongs.allSatisfy { pings.contains($0) }, "each pong echoes its ping's payload")
    }

    @Test func compressedMessagesAreInflated() async throws {
        let server = try await ScriptedPusherServer.start(transport: .init(perMessageDeflate: true))
        defer { server.stop() }
        let client = makeClient(port: server.port)
        let recorder = EventRecorder(client)
        try await client.subscribe("ticker")
        await client.connect()
        try await recorder.wait { $0.isSubscribed("ticker") }
        let big = String(repeating: "pushtop ", count: 2000)
        let conn = try await server.connection(1)
        for i in 0..<3 { conn.send(PusherMessage(event: "big\(i)", channel: "ticker", data: .string(big))) }
        try await waitUntil { recorder.channelEvents.count == 3 }
        #expect(recorder.channelEvents.map(\.dataText) == [big, big, big])
        #expect(recorder.errors.isEmpty)
    }

    @Test func eventsInFlightAfterUnsubscribeAreCountedNotDelivered() async throws {
        let (server, client, tap, recorder) = try await tapped()
        defer { server.stop() }
        try await client.subscribe("ticker")
        try await client.subscribe("other")
        await client.connect()
        try await recorder.wait { $0.isSubscribed("other") }
        await client.unsubscribe("ticker")
        let conn = try await server.connection(1)
        try await conn.waitForMessage { $0.event == "pusher:unsubscribe" }
        conn.send(PusherMessage(event: "late", channel: "ticker", data: .string("{}")))
        conn.send(PusherMessage(event: "marker", channel: "other", data: .string("{}")))
        try await waitUntil { recorder.channelEvents.contains { $0.name == "marker" } }
        #expect(!recorder.channelEvents.contains { $0.channel == "ticker" })
        #expect(await client.framesForUnknownChannels == 1)
        #expect(tap.all.contains { $0.text.contains(#""event":"late""#) })
    }

    @Test func disconnectWaitsForTheCloseHandshake() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let proxy = try await FaultProxy.start(upstreamPort: server.port, observing: true)
        defer { proxy.stop() }
        let client = makeClient(port: proxy.port)
        let recorder = EventRecorder(client)
        await client.connect()
        try await recorder.waitForState(.connected)
        let finished = await client.disconnect(waitingForClose: .seconds(5))
        #expect(finished, "the server answered the close frame")
        try await waitUntil { proxy.connections.first?.clientEnded == true }
        #expect(proxy.connections.first?.closeBeforeEnd == true)
    }
}
