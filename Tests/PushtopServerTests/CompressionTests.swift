import CompressNIO
import Foundation
import NIOCore
import NIOHTTP1
import PusherChannels
import PusherProtocol
import PushtopTestSupport
import Testing

@testable import PushtopServer

/// permessage-deflate (RFC 7692) on a real server over loopback: negotiated with clients that offer it (our own
/// client, raw sockets), refused when off or not offered, compressed client messages accepted, bombs refused.
@Suite("Compression")
struct CompressionTests {
    static let offer = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"
    static let agreed = "permessage-deflate; server_no_context_takeover; client_no_context_takeover"

    // MARK: Our own client

    /// PusherChannels' client offers the extension; the proxy between it and the server sees the agreement and
    /// RSV1 on the events, and the client decodes them intact.
    @Test func ourClientNegotiatesAndEventsArriveCompressed() async throws {
        let result = try await Self.deliverThroughProxy { _ in }
        #expect(result.extensions == Self.agreed)
        // The three long events (over 1 KB) are long enough to compress; the short one and Pusher's own frames are not.
        #expect(result.compressedFrames == 3, "compressed \(result.compressedFrames) of \(result.dataFrames)")
        #expect(result.dataFrames >= 6, "connection_established, subscription_succeeded and four events")
    }

    @Test func offWhenTheServerIsConfiguredSo() async throws {
        let result = try await Self.deliverThroughProxy { $0.compression = false }
        #expect(result.extensions == nil)
        #expect(result.compressedFrames == 0 && result.dataFrames >= 4)
    }

    struct Delivery {
        var extensions: String?
        var dataFrames: Int
        var compressedFrames: Int
    }

    /// Publishes three long events and a short one to a PusherClient connected through an observing FaultProxy; checks the
    /// client got them intact; returns what the proxy saw the server send.
    static func deliverThroughProxy(_ configure: (inout ServerConfiguration) -> Void) async throws -> Delivery {
        try await withServer(configure) { server in
            let proxy = try await FaultProxy.start(upstreamPort: server.port, observing: true)
            defer { proxy.stop() }
            let client = PusherClient(
                options: PusherClientOptions(
                    key: server.configuration.app.key, host: "127.0.0.1", port: proxy.port,
                    connection: ConnectionConfiguration(useTLS: false)))
            let recorder = EventRecorder(client)
            try await client.subscribe("news")
            await client.connect()
            try await recorder.wait("subscribed") { $0.isSubscribed("news") }
            let long = (0..<3).map {
                #"{"headline":"story \#($0)","body":"\#(String(repeating: "all the news that fits ", count: 60))"}"#
            }
            for (index, data) in (long + ["{}"]).enumerated() {
                try await server.hub.publish(PublishRequest(channels: ["news"], name: "story-\(index)", data: data))
            }
            try await waitUntil("four events") { recorder.channelEvents.count >= 4 }
            let received = recorder.channelEvents.compactMap(\.dataText)
            #expect(received == long + ["{}"])
            await client.shutdown()
            let record = try #require(proxy.connections.first)
            return Delivery(
                extensions: record.serverExtensions, dataFrames: record.serverDataFrames,
                compressedFrames: record.serverCompressedFrames)
        }
    }

    // MARK: Raw sockets

    @Test func notNegotiatedWhenTheClientDoesNotOfferIt() async throws {
        try await withServer { server in
            let port = server.port
            let key = server.configuration.app.key
            let (head, frame) = try await offloaded {
                let (socket, head) = try RawSocket.webSocketWithHead(port: port, path: "/app/\(key)?protocol=7")
                defer { socket.close() }
                return (head, try socket.readFrame())
            }
            #expect(!head.lowercased().contains("sec-websocket-extensions"))
            #expect(!frame.rsv1 && frame.text.contains("pusher:connection_established"))
        }
    }

    /// A raw client that offers the extension gets both no-context-takeover parameters, Pusher's short frames as they
    /// are, and an event of 1 KB or more compressed so that it inflates on its own.
    @Test func aRawOfferIsAnsweredAndFramesInflate() async throws {
        try await withServer({ $0.subscriptionCountEvents = false }) { server in
            let port = server.port
            let key = server.configuration.app.key
            let (socket, head, established) = try await offloaded {
                let (socket, head) = try RawSocket.webSocketWithHead(
                    port: port, path: "/app/\(key)?protocol=7", headers: [Self.offer])
                let established = try socket.readFrame()
                try socket.sendText(#"{"event":"pusher:subscribe","data":{"channel":"news"}}"#)
                _ = try socket.readEvent("pusher_internal:subscription_succeeded")
                return (socket, head, established)
            }
            defer { socket.close() }
            #expect(head.contains("Sec-WebSocket-Extensions: \(Self.agreed)\r\n"))
            #expect(!established.rsv1 && established.text.contains("pusher:connection_established"))
            let story = String(repeating: "all the news that fits ", count: 50)
            try await server.hub.publish(PublishRequest(channels: ["news"], name: "story", data: story))
            let frame = try await offloaded { try socket.readFrame() }
            #expect(frame.rsv1 && frame.payload.count < story.utf8.count / 4)
            #expect(try Self.inflate(frame.payload).contains(story))
        }
    }

    /// `server_max_window_bits=11`: the client inflates with 2 KB of window, so longer messages go uncompressed (and
    /// those under 1 KB, as always).
    @Test func aSmallServerWindowKeepsLongMessagesUncompressed() async throws {
        try await withServer({ $0.subscriptionCountEvents = false }) { server in
            let port = server.port
            let key = server.configuration.app.key
            let socket = try await offloaded {
                let (socket, head) = try RawSocket.webSocketWithHead(
                    port: port, path: "/app/\(key)?protocol=7",
                    headers: ["Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=11"])
                guard head.contains("\(Self.agreed); server_max_window_bits=11\r\n") else {
                    throw RawSocket.Failure(description: "unexpected answer: \(head)")
                }
                _ = try socket.readFrame()
                try socket.sendText(#"{"event":"pusher:subscribe","data":{"channel":"sizes"}}"#)
                _ = try socket.readFrame()
                return socket
            }
            defer { socket.close() }
            let short = String(repeating: "ab", count: 50), fits = String(repeating: "ab", count: 700)
            let long = String(repeating: "ab", count: 1200)
            for data in [short, fits, long] {
                try await server.hub.publish(PublishRequest(channels: ["sizes"], name: "e", data: data))
            }
            let frames = try await offloaded { try (0..<3).map { _ in try socket.readFrame() } }
            #expect(!frames[0].rsv1 && frames[0].text.contains(short))
            #expect(frames[1].rsv1 && frames[1].payload.count < 200)
            #expect(try Self.inflate(frames[1].payload, windowBits: 11).contains(fits))
            #expect(!frames[2].rsv1 && frames[2].text.contains(long))
        }
    }

    /// A client event sent compressed (its subscribe compressed and fragmented too) reaches the other subscriber.
    @Test func aCompressedClientEventIsAccepted() async throws {
        try await withServer { server in
            let channel = "private-room"
            let (bob, bobID) = try await TestSocket.established(server.url())
            try await bob.subscribe(channel, auth: server.auth(socketID: bobID, channel: channel))
            _ = try await bob.next(PusherEventName.subscriptionSucceeded, channel: channel)
            let port = server.port
            let key = server.configuration.app.key
            let established = try await offloaded { () -> (RawSocket, String) in
                let (socket, _) = try RawSocket.webSocketWithHead(
                    port: port, path: "/app/\(key)?protocol=7", headers: [Self.offer])
                let frame = try socket.readFrame()
                return (socket, frame.rsv1 ? try Self.inflate(frame.payload) : frame.text)
            }
            let alice = established.0
            defer { alice.close() }
            let message = try PusherMessage(decoding: established.1)
            let aliceID = try #require(message.dataJSON?["socket_id"]?.stringValue)
            let auth = server.auth(socketID: aliceID, channel: channel)
            let subscribe = #"{"event":"pusher:subscribe","data":{"channel":"\#(channel)","auth":"\#(auth)"}}"#
            let event =
                #"{"event":"client-note","channel":"\#(channel)","data":{"text":"\#(String(repeating: "squeeze me ", count: 30))"}}"#
            try await offloaded {
                // The subscribe in two fragments: RSV1 on the first only.
                let compressed = Self.deflate(Array(subscribe.utf8))
                let half = compressed.count / 2
                try alice.sendFrame(opcode: 0x1, payload: Array(compressed[..<half]), fin: false, rsv1: true)
                try alice.sendFrame(opcode: 0x0, payload: Array(compressed[half...]))
                let succeeded = try alice.readFrame()
                let text = succeeded.rsv1 ? try Self.inflate(succeeded.payload) : succeeded.text
                guard text.contains("subscription_succeeded") else {
                    throw RawSocket.Failure(description: "not subscribed: \(text)")
                }
                try alice.sendFrame(opcode: 0x1, payload: Self.deflate(Array(event.utf8)), rsv1: true)
            }
            let note = try await bob.next("client-note", channel: channel)
            #expect(note.dataText?.contains("squeeze me squeeze me") == true)
            await bob.close()
        }
    }

    /// A frame of 48 KiB that inflates to 48 MiB, to a server whose limit is 64 KiB: closed with 1009 at once (before
    /// the client's 10 s read gives up), and the server's memory does not grow by anything like the bomb.
    @Test func aDecompressionBombCloses1009Quickly() async throws {
        try await withServer({ $0.limits.maxMessageBytes = 64 * 1024 }) { server in
            let bomb = Self.bomb(megabytes: 48)
            #expect(bomb.count < 64 * 1024)
            let port = server.port
            let key = server.configuration.app.key
            let before = Self.residentBytes()
            let code = try await offloaded { () -> Int? in
                let (socket, _) = try RawSocket.webSocketWithHead(
                    port: port, path: "/app/\(key)?protocol=7", headers: [Self.offer])
                defer { socket.close() }
                _ = try socket.readFrame()
                try socket.sendFrame(opcode: 0x1, payload: bomb, rsv1: true)
                return socket.readCloseCode()
            }
            let grown = Self.residentBytes() - before
            // Closed with 1009 rather than after inflating it all: the memory says so, not the clock.
            #expect(code == 1009)
            // The whole test process's memory: other suites run beside this one (up to ~20 MiB seen), but inflating the
            // bomb would take 48 MiB.
            #expect(grown < 32 << 20, "resident memory grew by \(grown >> 20) MiB")
        }
    }

    @Test func aCompressedMessageThatDoesNotInflateCloses1007() async throws {
        try await withServer { server in
            let code = try await Self.closeCodeAfterSending(server) {
                try $0.sendFrame(opcode: 0x1, payload: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF], rsv1: true)
            }
            #expect(code == 1007)
        }
    }

    @Test func rsv1OnAControlFrameCloses1002() async throws {
        try await withServer { server in
            let code = try await Self.closeCodeAfterSending(server) {
                try $0.sendFrame(opcode: 0x9, payload: Array("ping".utf8), rsv1: true)
            }
            #expect(code == 1002)
        }
    }

    @Test func rsv1WithoutTheExtensionCloses1002() async throws {
        try await withServer({ $0.compression = false }) { server in
            let code = try await Self.closeCodeAfterSending(server) {
                try $0.sendFrame(
                    opcode: 0x1, payload: Self.deflate(Array(#"{"event":"pusher:ping","data":{}}"#.utf8)), rsv1: true)
            }
            #expect(code == 1002)
        }
    }

    // MARK: Negotiation (RFC 7692 section 7.1)

    @Test func theFirstOfferTheServerCanHonourIsAnswered() {
        func answer(_ values: String...) -> String? {
            var headers = HTTPHeaders()
            for value in values { headers.add(name: "Sec-WebSocket-Extensions", value: value) }
            return PerMessageDeflate.negotiate(headers)?.responseHeader
        }
        #expect(answer("permessage-deflate") == Self.agreed)
        #expect(answer("permessage-deflate; client_max_window_bits; server_no_context_takeover") == Self.agreed)
        #expect(answer("permessage-deflate; server_max_window_bits=10") == "\(Self.agreed); server_max_window_bits=10")
        #expect(
            answer(#"permessage-deflate; server_max_window_bits="12""#) == "\(Self.agreed); server_max_window_bits=12")
        #expect(answer("x-webkit-deflate-frame, permessage-deflate; client_max_window_bits=9") == Self.agreed)
        // Declined: a window out of range, a leading zero, a value where none is allowed, a missing value, an
        // unknown parameter, a parameter twice.
        #expect(answer("permessage-deflate; client_max_window_bits=16") == nil)
        #expect(answer("permessage-deflate; server_max_window_bits=7") == nil)
        #expect(answer("permessage-deflate; server_max_window_bits=010") == nil)
        #expect(answer("permessage-deflate; server_no_context_takeover=1") == nil)
        #expect(answer("permessage-deflate; server_max_window_bits") == nil)
        #expect(answer("permessage-deflate; mystery") == nil)
        #expect(answer("permessage-deflate; server_no_context_takeover; server_no_context_takeover") == nil)
        #expect(answer("x-webkit-deflate-frame") == nil)
        // A declined offer falls back to the next one, in the same header or the next.
        #expect(answer("permessage-deflate; client_max_window_bits=16, permessage-deflate") == Self.agreed)
        #expect(
            answer("permessage-deflate; mystery", "permessage-deflate; server_max_window_bits=9")
                == "\(Self.agreed); server_max_window_bits=9")
    }

    @Test func shortAndIncompressibleFramesStayUncompressed() {
        let deflate = PerMessageDeflate(accepting: DeflateOffer(parameters: [])!)
        let short = EncodedTextFrame(payload: ByteBuffer(string: #"{"event":"pusher:pong","data":"{}"}"#))
        #expect(short.bytes(for: deflate) == short.bytes)
        let random = (0..<600).map { _ in UInt8.random(in: 0x21...0x7E) }
        let noise = EncodedTextFrame(payload: ByteBuffer(bytes: random))
        #expect(noise.bytes(for: deflate).readableBytes <= noise.bytes.readableBytes)
        let text = EncodedTextFrame(payload: ByteBuffer(string: String(repeating: "compress me ", count: 100)))
        let compressed = text.bytes(for: deflate)
        #expect(compressed.getInteger(at: compressed.readerIndex, as: UInt8.self) == 0xC1)
        #expect(compressed.readableBytes < 100)
        #expect(text.bytes(for: nil) == text.bytes)
    }

    // MARK: Helpers

    /// The close code after offering the extension and sending what `send` sends.
    static func closeCodeAfterSending(
        _ server: EmbeddedServer, _ send: @escaping @Sendable (RawSocket) throws -> Void
    ) async throws -> Int? {
        try await WebSocketProtocolTests.closeCode(server, headers: [Self.offer], after: send)
    }

    /// Raw deflate of one message, as a permessage-deflate client sends it (sync flush, tail removed).
    static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        let compressor = try! ZlibCompressor(algorithm: .deflate)
        var input = ByteBuffer(bytes: bytes)
        var output = ByteBuffer()
        output.reserveCapacity(compressor.maxSize(from: input))
        try! compressor.deflate(from: &input, to: &output, flush: .sync)
        return Array(output.readableBytesView.dropLast(4))
    }

    /// A compressed message of `megabytes` MiB of one repeated JSON-ish byte pattern.
    static func bomb(megabytes: Int) -> [UInt8] {
        let compressor = try! ZlibCompressor(algorithm: .deflate)
        let chunk = ByteBuffer(repeating: UInt8(ascii: "a"), count: 1 << 20)
        var output = ByteBuffer()
        output.reserveCapacity(megabytes * 1100 + 1024)
        for _ in 0..<megabytes {
            var input = chunk
            try! compressor.deflate(from: &input, to: &output, flush: .no)
        }
        var empty = ByteBuffer()
        try! compressor.deflate(from: &empty, to: &output, flush: .sync)
        return Array(output.readableBytesView.dropLast(4))
    }

    /// Inflates a server message (raw deflate without its tail) with a window of 2^`windowBits` bytes.
    static func inflate(_ bytes: [UInt8], windowBits: Int32 = 15) throws -> String {
        let decompressor = try ZlibDecompressor(algorithm: .deflate, windowSize: windowBits)
        var input = ByteBuffer(bytes: bytes + [0x00, 0x00, 0xFF, 0xFF])
        var output = ByteBuffer()
        output.reserveCapacity(1 << 20)
        do {
            try decompressor.inflate(from: &input, to: &output)
        } catch let error as CompressNIOError where error == .inputBufferOverflow {}
        return String(buffer: output)
    }

    /// The test process's resident memory (the server runs in it).
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
