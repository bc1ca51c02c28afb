import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Fan-out framing")
struct FanOutFramingTests {
    /// The hub encodes each event's WebSocket frame once (header and payload) for all its subscribers: every
    /// length form (7-bit, 16-bit, 64-bit) must reach every subscriber intact, in order, and frames the socket
    /// writes itself (a pong) must still interleave correctly.
    @Test func eventsOfEveryFrameLengthReachEverySubscriberIntact() async throws {
        try await withServer({
            $0.limits.maxEventDataBytes = 100_000
            $0.subscriptionCountEvents = false
        }) { server in
            let port = server.port
            let key = server.configuration.app.key
            let subscribers = try await offloaded {
                try (0..<2).map { _ in
                    let socket = try RawSocket.webSocket(port: port, path: "/app/\(key)?protocol=7")
                    _ = try socket.readEvent("pusher:connection_established")
                    try socket.sendText(#"{"event":"pusher:subscribe","data":{"channel":"sizes"}}"#)
                    _ = try socket.readEvent("pusher_internal:subscription_succeeded")
                    return socket
                }
            }
            // `{"event":"e","channel":"sizes","data":"…"}` is 41 bytes plus the data: these sizes put payloads on
            // both sides of 125/126 and of 65,535/65,536 bytes.
            let sizes = [0, 84, 85, 86, 300, 65_494, 65_495, 65_496, 90_000]
            for size in sizes {
                try await server.hub.publish(
                    PublishRequest(channels: ["sizes"], name: "e", data: String(repeating: "x", count: size)))
            }
            for socket in subscribers {
                let lengths = try await offloaded { () -> [Int] in
                    var lengths: [Int] = []
                    for size in sizes {
                        let frame = try socket.readFrame()
                        #expect(frame.fin && frame.opcode == 0x1)
                        let message = try PusherMessage(decoding: frame.text)
                        #expect(message.event == "e" && message.channel == "sizes")
                        let data = message.dataText ?? ""
                        #expect(data.utf8.count == size && data.utf8.allSatisfy { $0 == UInt8(ascii: "x") })
                        lengths.append(frame.payload.count)
                    }
                    // A frame the socket's own encoder writes (a WebSocket pong) follows them in order.
                    try socket.sendFrame(opcode: 0x9, payload: Array("still-framed".utf8))
                    let pong = try socket.readFrame()
                    #expect(pong.opcode == 0xA && pong.text == "still-framed")
                    return lengths
                }
                #expect(Set([125, 126, 65_535, 65_536]).isSubset(of: Set(lengths)), "payload lengths \(lengths)")
            }
            for socket in subscribers { socket.close() }
        }
    }

    /// A batch's events leave in one turn (each subscriber's frames written together, one flush): they must
    /// still arrive whole and in the batch's order, across channels.
    @Test func aBatchArrivesWholeAndInOrderAcrossChannels() async throws {
        try await withServer({ $0.subscriptionCountEvents = false }) { server in
            let port = server.port
            let key = server.configuration.app.key
            let socket = try await offloaded {
                let socket = try RawSocket.webSocket(port: port, path: "/app/\(key)?protocol=7")
                _ = try socket.readEvent("pusher:connection_established")
                for channel in ["left", "right"] {
                    try socket.sendText(#"{"event":"pusher:subscribe","data":{"channel":"\#(channel)"}}"#)
                    _ = try socket.readEvent("pusher_internal:subscription_succeeded")
                }
                return socket
            }
            let batch = (0..<10).map {
                PublishRequest(channels: [$0.isMultiple(of: 2) ? "left" : "right"], name: "n\($0)", data: "\($0)")
            }
            try await server.hub.publish(batch: batch)
            let received = try await offloaded {
                try (0..<10).map { _ in try PusherMessage(decoding: socket.readFrame().text) }
            }
            #expect(received.map(\.event) == batch.map(\.name))
            #expect(received.map(\.channel) == batch.map { $0.channels.first })
            #expect(received.map(\.dataText) == batch.map(\.data))
            socket.close()
        }
    }
}
