import Logging
import NIOCore
import NIOSSL
import NIOWebSocket
import WSClient
import WSCompression

/// The real transport: swift-websocket's `WebSocketClient` (TLS, permessage-deflate).
public struct WebSocketTransport: PusherTransport {
    /// The largest message accepted from the wire; bigger ones close the connection (1009).
    public var maxMessageSize: Int
    public var logger: Logger

    public init(maxMessageSize: Int = 16 << 20, logger: Logger = Logger(label: "pushtop.transport")) {
        self.maxMessageSize = maxMessageSize
        self.logger = logger
    }

    public func open(url: String, handler: @escaping @Sendable (TransportEvent) -> Void) -> any TransportConnection {
        let connection = WebSocketConnection()
        let maxMessageSize = self.maxMessageSize
        let logger = self.logger
        let task = Task {
            var configuration = WebSocketClientConfiguration(
                maxFrameSize: maxMessageSize,
                extensions: [.perMessageDeflate(maxDecompressedFrameSize: maxMessageSize)],
                closeTimeout: .seconds(3)
            )
            configuration.additionalHeaders = [:]
            do {
                let closeFrame = try await WebSocketClient.connect(
                    url: url, configuration: configuration,
                    tlsConfiguration: url.hasPrefix("wss") ? TLSConfiguration.makeClientConfiguration() : nil,
                    logger: logger
                ) { inbound, outbound, _ in
                    handler(.opened)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await command in connection.commands {
                                switch command {
                                case .text(let text):
                                    try await outbound.write(.text(text))
                                case .close(let code, let reason):
                                    try await outbound.close(.init(codeNumber: code), reason: reason)
                                    return
                                }
                            }
                        }
                        var messages = inbound.messages(maxSize: maxMessageSize).makeAsyncIterator()
                        while let message = try await messages.next() {
                            switch message {
                            case .text(let text): handler(.text(text))
                            case .binary(let buffer): handler(.binary(size: buffer.readableBytes))
                            }
                        }
                        group.cancelAll()
                    }
                }
                connection.finish()
                if let closeFrame {
                    handler(.closed(code: Int(closeFrame.closeCode.number), reason: closeFrame.reason ?? ""))
                } else {
                    handler(.closed(code: nil, reason: "connection closed without a close frame"))
                }
            } catch {
                connection.finish()
                handler(.closed(code: nil, reason: Self.describe(error)))
            }
        }
        connection.setTask(task)
        return connection
    }

    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connectTimeout") { return "connection timed out" }
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text
    }
}

/// The handle of one `WebSocketTransport` connection: a queue of outgoing commands for its writer.
final class WebSocketConnection: TransportConnection, Sendable {
    enum Command: Sendable {
        case text(String)
        case close(code: Int, reason: String)
    }

    let commands: AsyncStream<Command>
    private let continuation: AsyncStream<Command>.Continuation
    private let task = TaskHolder()

    init() {
        (commands, continuation) = AsyncStream.makeStream(of: Command.self)
    }

    func send(_ text: String) {
        continuation.yield(.text(text))
    }

    func close(code: Int, reason: String) {
        continuation.yield(.close(code: code, reason: reason))
        continuation.finish()
        task.cancelAfter(seconds: 3)
    }

    func finish() {
        continuation.finish()
    }

    func setTask(_ task: Task<Void, Never>) {
        self.task.set(task)
    }
}
