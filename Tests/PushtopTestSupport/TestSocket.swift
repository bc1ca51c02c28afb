import Foundation
import Logging
import PusherChannels
import PusherProtocol
import Testing
import WSClient

/// A real WebSocket client for tests: connects over loopback, records every message, sends frames.
public actor TestSocket {
    public private(set) var received: [PusherMessage] = []
    private var cursor = 0
    private var outbound: WebSocketOutboundWriter?
    public private(set) var closeCode: Int?
    public private(set) var finished = false
    private var runTask: Task<Void, Never>?

    public struct Timeout: Error, CustomStringConvertible {
        public var what: String
        public var description: String { "timed out waiting for \(what)" }
    }

    /// Connects to `url` and waits for the upgrade.
    public static func connect(_ url: String) async throws -> TestSocket {
        let socket = TestSocket()
        await socket.start(url)
        try await socket.waitUntilOpen()
        return socket
    }

    /// Connects to the server's app and returns once `pusher:connection_established` arrived.
    public static func established(_ url: String) async throws -> (TestSocket, String) {
        let socket = try await connect(url)
        let message = try await socket.next(PusherEventName.connectionEstablished)
        let socketID = message.dataJSON?["socket_id"]?.stringValue ?? ""
        return (socket, socketID)
    }

    /// Connects to the server's app, subscribes to the public `channel` and returns once its
    /// `pusher_internal:subscription_succeeded` arrived.
    public static func subscribed(_ url: String, to channel: String) async throws -> (TestSocket, String) {
        let (socket, socketID) = try await established(url)
        try await socket.subscribe(channel)
        _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: channel)
        return (socket, socketID)
    }

    private func start(_ url: String) {
        var configuration = WebSocketClientConfiguration()
        configuration.maxFrameSize = 1 << 20
        runTask = Task {
            var logger = Logger(label: "test.socket")
            logger.logLevel = .critical
            do {
                let frame = try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
                    inbound, outbound, _ in
                    await self.opened(outbound)
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case .text(let text) = message { await self.append(text) }
                    }
                }
                self.ended(code: frame.map { Self.number(of: $0) })
            } catch {
                self.ended(code: nil)
            }
        }
    }

    public static func number(of frame: WebSocketCloseFrame) -> Int {
        frame.closeCode.number
    }

    private func opened(_ writer: WebSocketOutboundWriter) { outbound = writer }
    private func append(_ text: String) {
        if let message = try? PusherMessage(decoding: text) { received.append(message) }
    }
    private func ended(code: Int?) {
        closeCode = code
        finished = true
    }

    /// Sends a text frame.
    public func send(_ text: String) async throws {
        guard let outbound else { throw Timeout(what: "an open socket") }
        try await outbound.write(.text(text))
    }

    public func send(_ message: PusherMessage) async throws { try await send(message.jsonString) }

    /// Closes from the client side.
    public func close() async {
        try? await outbound?.close(.normalClosure, reason: nil)
        _ = try? await waitUntil(timeout: 10, "the socket to end") { self.finished }
        runTask?.cancel()
    }

    /// Waits for the next message (after those already taken) matching `event` and, when given, `channel`.
    public func next(_ event: String, channel: String? = nil, timeout: Double = 10) async throws -> PusherMessage {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            while cursor < received.count {
                let message = received[cursor]
                cursor += 1
                if message.event == event && (channel == nil || message.channel == channel) { return message }
            }
            if finished { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw Timeout(what: "\(event) on \(channel ?? "any channel") (got \(received.map(\.event)))")
    }

    /// Every message received so far with this event name.
    public func all(_ event: String, channel: String? = nil) -> [PusherMessage] {
        received.filter { $0.event == event && (channel == nil || $0.channel == channel) }
    }

    /// Waits until the socket has ended; returns the close code.
    public func waitForClose(timeout: Double = 10) async throws -> Int? {
        try await waitUntil(timeout: timeout, "the server to close") { self.finished }
        return closeCode
    }

    public func waitUntilOpen() async throws {
        try await waitUntil("the socket to open") { self.outbound != nil || self.finished }
    }

    // MARK: Protocol helpers

    public func subscribe(_ channel: String, auth: String? = nil, channelData: String? = nil) async throws {
        var data: [String: JSONValue] = ["channel": .string(channel)]
        if let auth { data["auth"] = .string(auth) }
        if let channelData { data["channel_data"] = .string(channelData) }
        try await send(PusherMessage(event: PusherEventName.subscribe, data: .object(data)))
    }

    /// A ping and its pong: by then the server has handled everything this socket sent before.
    public func roundTrip() async throws {
        try await send(#"{"event":"pusher:ping","data":{}}"#)
        _ = try await next(PusherEventName.pong)
    }

    /// Waits for the next `pusher:error`, and expects its message to contain `text`.
    @discardableResult
    public func nextError(containing text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> PusherMessage
    {
        let error = try await next(PusherEventName.error)
        #expect(
            error.data?["message"]?.stringValue?.contains(text) == true, "\(error.jsonString)",
            sourceLocation: sourceLocation)
        return error
    }
}
