import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Slow consumers and echoes")
struct SlowConsumerAndEchoTests {
    @Test func aSubscriberThatStopsReadingIsClosedWith4100AndCounted() async throws {
        try await withServer({ $0.limits.maxPendingOutboundBytes = 64 * 1024 }) { server in
            let port = server.port
            let key = server.configuration.app.key
            let slow = try await offloaded {
                let socket = try RawSocket.webSocket(port: port, path: "/app/\(key)?protocol=7", receiveBuffer: 4_096)
                _ = try socket.readEvent("pusher:connection_established")
                try socket.sendText("{\"event\":\"pusher:subscribe\",\"data\":{\"channel\":\"firehose\"}}")
                _ = try socket.readEvent("pusher_internal:subscription_succeeded")
                return socket
            }
            let (fast, _) = try await TestSocket.subscribed(server.url(), to: "calm")

            let data = String(repeating: "x", count: 8_000)
            var published = 0
            while await server.hub.slowConsumerDisconnects == 0, published < 5_000 {
                try await server.hub.publish(PublishRequest(channels: ["firehose"], name: "big", data: data))
                published += 1
                if published.isMultiple(of: 50) { try await Task.sleep(for: .milliseconds(1)) }
            }
            #expect(await server.hub.slowConsumerDisconnects == 1)
            #expect(await server.hub.channelSummary("firehose").subscriptionCount == 0)
            // Others are still served; the slow one ends with 4100 once it reads its backlog.
            try await server.hub.publish(PublishRequest(channels: ["calm"], name: "after", data: "{}"))
            _ = try await fast.next("after", channel: "calm", timeout: 10)
            let code = try await offloaded { slow.readCloseCode() }
            #expect(code == 4100 || code == nil)
            await fast.close()
        }
    }

    @Test func aHugeChannelNameIsNotEchoedBack() async throws {
        try await withServer { server in
            let port = server.port
            let key = server.configuration.app.key
            let answered = try await offloaded { () -> Int in
                let socket = try RawSocket.webSocket(port: port, path: "/app/\(key)?protocol=7")
                _ = try socket.readEvent("pusher:connection_established")
                let name = String(repeating: "n", count: 900_000)
                try socket.sendText("{\"event\":\"pusher:subscribe\",\"data\":{\"channel\":\"\(name)\"}}")
                var bytes = 0
                while true {
                    let frame = try socket.readFrame()
                    bytes += frame.payload.count
                    if frame.text.contains("pusher:subscription_error") { return bytes }
                }
            }
            #expect(answered < 2_000, "answered with \(answered) bytes")
        }
    }
}
