import Foundation
import PusherProtocol
import PushtopTestSupport
import Testing

/// The fuzzers' WebSocket inputs (`Fuzz/corpus/message`: Pusher messages; `Fuzz/corpus/json`: JSON values), each sent
/// as a text and as a binary frame on a connection of its own to the real `pushtop serve` and through a real `pushtop
/// proxy` to a Pusher server that is not pushtop (``AdversaryTarget``), then hostile frames the corpus cannot hold.
/// Nothing crashes either; each connection goes on (a ping is answered) or ends with a close code a client may be
/// sent; and a well-behaved subscriber on the same listener still gets its events after all of it.
@Suite("WebSocket fuzz corpus", .serialized)
struct WebSocketFuzzCorpusTests {
    static let corpusDirectories = ["message", "json"]

    /// Every corpus input, named `directory/file`.
    static func corpus() throws -> [(name: String, bytes: [UInt8])] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")
        return try corpusDirectories.flatMap { directory in
            let folder = root.appendingPathComponent(directory)
            return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { file in
                ("\(directory)/\(file)", Array(try Data(contentsOf: folder.appendingPathComponent(file))))
            }
        }
    }

    /// What became of a connection after a frame.
    enum Outcome: Equatable, CustomStringConvertible {
        /// The ping after it was answered: the connection goes on.
        case relayed
        /// Ended with this close code.
        case closed(Int)
        /// Ended without a close frame.
        case dropped

        var description: String {
            switch self {
            case .relayed: "relayed"
            case .closed(let code): "closed \(code)"
            case .dropped: "dropped without a close frame"
            }
        }

        /// Relayed, or closed with a code an endpoint may send (RFC 6455 section 7.4, and Pusher's 4000-4999).
        var isProper: Bool {
            switch self {
            case .relayed: true
            case .closed(let code):
                [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1011].contains(code) || (4000..<5000).contains(code)
            case .dropped: false
            }
        }
    }

    /// Opens a WebSocket to the blog app on `port`, waits for `pusher:connection_established`, writes `frames` (raw
    /// bytes: a header and a payload each, masked or not as the case needs), then a ping, and reads until its pong or
    /// the end.
    static func exchange(port: Int, frames: [[UInt8]]) async throws -> Outcome {
        try await offloaded {
            let socket = try RawSocket.webSocket(port: port, path: "/app/\(AdversaryTarget.blog.key)?protocol=7")
            defer { socket.close() }
            _ = try socket.readEvent(PusherEventName.connectionEstablished)
            for frame in frames { try? socket.send(frame) }
            try? socket.sendText(#"{"event":"pusher:ping","data":{}}"#)
            while true {
                guard let frame = try? socket.readFrame() else { return .dropped }
                if frame.opcode == 0x8 { return .closed(frame.closeCode ?? 1005) }
                if frame.opcode == 0x1, frame.text.contains(PusherEventName.pong) { return .relayed }
            }
        }
    }

    /// One masked frame: `first` is its first byte (FIN, RSV, opcode); `length` is what the header claims.
    static func frame(_ first: UInt8, _ payload: [UInt8], masked: Bool = true, length: UInt64? = nil) -> [UInt8] {
        var bytes: [UInt8] = [first]
        let claimed = length ?? UInt64(payload.count)
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch claimed {
        case ...125: bytes.append(maskBit | UInt8(claimed))
        case ...0xFFFF: bytes += [maskBit | 126, UInt8(claimed >> 8), UInt8(claimed & 0xFF)]
        default: bytes += [maskBit | 127] + (0..<8).reversed().map { UInt8((claimed >> ($0 * 8)) & 0xFF) }
        }
        guard masked else { return bytes + payload }
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    @Test(arguments: AdversaryTarget.allCases)
    func everyCorpusInputIsRelayedOrClosedProperly(_ target: AdversaryTarget) async throws {
        let corpus = try Self.corpus()
        #expect(corpus.count >= 40, "the corpus is gone: \(corpus.count) inputs")
        try await target.with { running in
            let (subscriber, _) = try await TestSocket.subscribed(
                "ws://127.0.0.1:\(running.port)/app/\(AdversaryTarget.blog.key)?protocol=7", to: "news")
            for (name, bytes) in corpus {
                let utf8 = bytes.withUnsafeBytes { UTF8Validation.isValid($0) }
                for (kind, opcode) in [("text", UInt8(0x81)), ("binary", UInt8(0x82))] {
                    let outcome = try await Self.exchange(port: running.port, frames: [Self.frame(opcode, bytes)])
                    #expect(outcome.isProper, "\(target): \(name) as \(kind): \(outcome)")
                    if kind == "text", !utf8 {
                        #expect(outcome == .closed(1007), "\(target): \(name), not UTF-8, as text: \(outcome)")
                    }
                    // Behind the proxy, what was relayed reached the upstream unchanged.
                    if let upstream = running.upstream, kind == "text", outcome == .relayed {
                        let relayed = upstream.connections.last?.frames.first
                        #expect(
                            relayed == String(decoding: bytes, as: UTF8.self),
                            "\(name): the upstream got \(relayed ?? "nothing")")
                    }
                }
            }
            try await Self.expectServed(subscriber, running: running)
        }
    }

    /// Frames a client must not send, which no corpus input can be (the corpus is payloads): each is closed alike by
    /// `serve` and by the proxy (the proxy's client side is `serve`'s frame checks, not its upstream's), with a
    /// close code, and none reaches the proxy's upstream.
    static let hostileFrames: [(name: String, frames: [[UInt8]])] = [
        ("a fragmented ping", [frame(0x09, [1, 2])]),
        ("a ping of 126 bytes", [frame(0x89, Array(repeating: 0x61, count: 126))]),
        ("invalid UTF-8 in a text frame", [frame(0x81, [0x7B, 0xC3, 0x28, 0x7D])]),
        ("invalid UTF-8 across fragments", [frame(0x01, [0x7B, 0xE2, 0x82]), frame(0x80, [0x28, 0x7D])]),
        ("a length header of 2^62", [frame(0x81, [], length: 1 << 62)]),
        ("a length header of 16 MiB", [frame(0x81, [], length: 16 << 20)]),
        ("an unmasked frame", [frame(0x81, Array(#"{"event":"pusher:ping","data":{}}"#.utf8), masked: false)]),
        ("a reserved opcode", [frame(0x83, [0x7B, 0x7D])]),
        ("RSV2 without an extension", [frame(0xA1, [0x7B, 0x7D])]),
        ("a continuation with no message", [frame(0x80, [0x7B, 0x7D])]),
        ("a new message inside a fragmented one", [frame(0x01, [0x7B]), frame(0x81, [0x7D])]),
        ("a close with a 1-byte payload", [frame(0x88, [0x03])]),
        ("a close with code 1005", [frame(0x88, [0x03, 0xED])]),
    ]

    @Test func hostileFramesAreClosedAlikeByServeAndTheProxy() async throws {
        try await AdversaryTarget.serve.with { serve in
            try await AdversaryTarget.proxy.with { proxy in
                let upstream = try #require(proxy.upstream)
                let (subscriber, _) = try await TestSocket.subscribed(
                    "ws://127.0.0.1:\(proxy.port)/app/\(AdversaryTarget.blog.key)?protocol=7", to: "news")
                for (name, frames) in Self.hostileFrames {
                    let fromServe = try await Self.exchange(port: serve.port, frames: frames)
                    let fromProxy = try await Self.exchange(port: proxy.port, frames: frames)
                    #expect(fromServe.isProper && fromServe != .relayed, "\(name): serve \(fromServe)")
                    #expect(fromProxy == fromServe, "\(name): proxy \(fromProxy), serve \(fromServe)")
                    let relay = try #require(upstream.connections.last)
                    try await waitUntil("\(name): the upstream's end closed") { !relay.isOpen }
                    #expect(relay.frames.isEmpty, "\(name): passed on to the upstream: \(relay.frames)")
                }
                try await Self.expectServed(subscriber, running: proxy)
            }
        }
    }

    /// A well-behaved subscriber gets an event published after the strangers.
    static func expectServed(_ subscriber: TestSocket, running: AdversaryTarget.Running) async throws {
        let blog = AdversaryTarget.blog
        let publish = SignedHTTPRequest(
            "POST", "/apps/\(blog.id)/events", body: #"{"name":"after","channels":["news"],"data":"ok"}"#,
            key: blog.key, secret: blog.secret)
        let answers = try await RawSocket.oneByOne([publish.text()], port: running.port)
        #expect(answers.map(\.status) == [200])
        #expect(try await subscriber.next("after").dataText == "ok")
        await subscriber.close()
    }
}
