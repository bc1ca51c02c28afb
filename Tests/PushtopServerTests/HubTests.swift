import PusherProtocol
import PushtopServer
import Testing

/// The hub without a network: the rules that do not need a socket.
@Suite("Hub")
struct HubTests {
    @Test func aConnectionThatStopsReadingIsDroppedNotBuffered() async throws {
        var configuration = ServerConfiguration()
        configuration.limits.maxQueuedFrames = 16
        let hub = PusherHub(configuration: configuration)
        let slow = await hub.open(appKey: "pushtop-key", protocolVersion: "7")
        await hub.receive("{\"event\":\"pusher:subscribe\",\"data\":{\"channel\":\"firehose\"}}", from: slow.id)
        for i in 0..<40 {
            try await hub.publish(PublishRequest(channels: ["firehose"], name: "e", data: "\(i)"))
        }
        #expect(await hub.connectionCount == 0)
        var frames = 0
        var sawClose = false
        for await frame in slow.frames {
            frames += 1
            if case .close = frame { sawClose = true }
        }
        #expect(frames <= 16)
        #expect(!sawClose)  // the stream just ends: the socket layer closes with 4100
    }

    @Test func subscriptionCountsOfABusyChannelAreCoalescedToOnePerSweep() async throws {
        var configuration = ServerConfiguration()
        configuration.limits.maxQueuedFrames = 10_000
        let hub = PusherHub(configuration: configuration)
        var connections: [HubConnection] = []
        for _ in 0..<300 {
            let c = await hub.open(appKey: "pushtop-key", protocolVersion: "7")
            await hub.receive("{\"event\":\"pusher:subscribe\",\"data\":{\"channel\":\"crowd\"}}", from: c.id)
            connections.append(c)
        }
        await hub.sweep()
        // The first subscriber saw every count while the channel was small (1...100), then one coalesced count.
        var counts: [Int] = []
        var iterator = connections[0].frames.makeAsyncIterator()
        while counts.last != 300, let frame = await iterator.next() {
            guard let text = frame.text, let message = try? PusherMessage(decoding: text),
                message.event == PusherEventName.subscriptionCount,
                let count = message.dataJSON?["subscription_count"]?.intValue
            else { continue }
            counts.append(count)
        }
        #expect(counts == Array(1...100) + [300], "not one frame per join to 300 subscribers (that is 45,000 frames)")
    }

    @Test(
        arguments: [
            ("other-key", "7", 4001), ("pushtop-key", "4", 4007), ("pushtop-key", "x", 4006),
            ("pushtop-key", nil, 4008),
        ] as [(String, String?, Int)])
    func refusalIsAnErrorFrameThenACloseWithTheSameCode(key: String, version: String?, code: Int) async throws {
        let hub = PusherHub(configuration: ServerConfiguration())
        let connection = await hub.open(appKey: key, protocolVersion: version)
        #expect(connection.socketID == nil)
        var frames: [OutboundFrame] = []
        for await frame in connection.frames { frames.append(frame) }
        #expect(frames.count == 2)
        let error = try PusherMessage(decoding: try #require(frames.first?.text))
        #expect(error.event == PusherEventName.error)
        #expect(error.data?["code"]?.intValue == code)
        guard case .close(let closeCode, _)? = frames.last else {
            Issue.record("no close frame")
            return
        }
        #expect(closeCode == code)
        #expect(await hub.connectionCount == 0)
    }

    @Test func fanOutEncodesAnEventOnceForAllSubscribers() async throws {
        let hub = PusherHub(configuration: ServerConfiguration())
        var connections: [HubConnection] = []
        for _ in 0..<3 {
            let connection = await hub.open(appKey: "pushtop-key", protocolVersion: "7")
            await hub.receive("{\"event\":\"pusher:subscribe\",\"data\":{\"channel\":\"fan\"}}", from: connection.id)
            connections.append(connection)
        }
        try await hub.publish(PublishRequest(channels: ["fan"], name: "e", data: "{\"x\":1}"))
        await hub.shutdown()
        var addresses: Set<Int> = []
        for connection in connections {
            for await frame in connection.frames {
                guard case .text(let buffer) = frame, String(buffer: buffer).hasPrefix("{\"event\":\"e\"") else {
                    continue
                }
                #expect(String(buffer: buffer) == "{\"event\":\"e\",\"channel\":\"fan\",\"data\":\"{\\\"x\\\":1}\"}")
                let address = buffer.withUnsafeReadableBytes { Int(bitPattern: $0.baseAddress) }
                addresses.insert(address)
            }
        }
        #expect(addresses.count == 1)  // one shared buffer, not one copy per subscriber
    }

    @Test func publishChecksEveryRuleBeforeSendingAnything() async throws {
        let hub = PusherHub(configuration: ServerConfiguration())
        await #expect(throws: PublishError.noChannels) {
            try await hub.publish(PublishRequest(channels: [], name: "e", data: ""))
        }
        await #expect(throws: PublishError.reservedEventName("pusher:x")) {
            try await hub.publish(PublishRequest(channels: ["a"], name: "pusher:x", data: ""))
        }
        await #expect(throws: PublishError.self) {
            try await hub.publish(batch: [
                PublishRequest(channels: ["a"], name: "ok", data: ""),
                PublishRequest(channels: ["bad name"], name: "e", data: ""),
            ])
        }
    }
}
