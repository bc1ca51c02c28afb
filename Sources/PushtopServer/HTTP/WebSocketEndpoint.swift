import Hummingbird
import HummingbirdWebSocket
import NIOWebSocket

/// The WebSocket endpoint `/app/{key}`: pumps a socket's messages into the hub and the hub's frames out.
///
/// Every socket is upgraded, even one with an unknown key: Pusher refuses a key by sending `pusher:error` and
/// closing with 4001, which clients understand, where a refused HTTP upgrade tells them nothing.
struct WebSocketEndpoint: Sendable {
    let hub: PusherHub
    let limits: PusherLimits
    /// How long to wait for a client's close reply after the server closed.
    let closeGrace: Duration

    func register(on router: Router<BasicWebSocketRequestContext>) {
        router.ws("/app/:key") { inbound, outbound, context in
            let path = context.request.uri.path
            let key = path.split(separator: "/").last.map(String.init) ?? ""
            let protocolVersion = context.request.uri.queryParameters["protocol"].map(String.init)
            let connection = await hub.open(appKey: key, protocolVersion: protocolVersion)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await read(inbound, connection: connection.id) }
                group.addTask { try await write(connection.frames, to: outbound) }
                _ = try await group.next()
                group.cancelAll()
            }
            await hub.disconnect(connection.id)
        }
    }

    private func read(_ inbound: WebSocketInboundStream, connection id: ConnectionID) async {
        do {
            for try await message in inbound.messages(maxSize: limits.maxMessageBytes) {
                switch message {
                case .text(let text): await hub.receive(text, from: id)
                case .binary(let buffer): await hub.receiveBinary(size: buffer.readableBytes, from: id)
                }
            }
        } catch {
            // A dropped socket or an oversized message ends the connection; the hub forgets it below.
        }
    }

    private func write(_ frames: AsyncStream<OutboundFrame>, to outbound: WebSocketOutboundWriter) async throws {
        for await frame in frames {
            switch frame {
            case .text(let buffer):
                try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: buffer)))
            case .close(let code, let reason):
                try await outbound.close(WebSocketErrorCode(codeNumber: code), reason: reason)
                // Give the client a moment to answer the close before the socket is dropped.
                try? await Task.sleep(for: closeGrace)
                return
            }
        }
        if !Task.isCancelled {
            try await outbound.close(.unknown(4100), reason: "Over capacity: the connection fell too far behind")
        }
    }
}
