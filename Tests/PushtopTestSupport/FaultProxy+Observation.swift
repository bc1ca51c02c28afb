import NIOCore

extension FaultProxy {
    /// What one connection through an observing proxy (`FaultProxy.start(…, observing: true)`) showed.
    public struct Observation: Sendable {
        /// Routed to the TLS port (the client's first byte began a TLS handshake).
        public var usedTLS = false
        /// The client sent a complete WebSocket close frame (plain connections only).
        public var closeFrameFromClient = false
        /// The status code of the client's close frame (1005 when it carried none).
        public var closeCodeFromClient: Int?
        /// The client's close frame arrived before its side of the TCP connection ended.
        public var closeBeforeEnd = false
        /// The client ended the TCP connection.
        public var clientEnded = false
        /// The `Sec-WebSocket-Extensions` of the server's upgrade response (plain connections only).
        public var serverExtensions: String?
        /// Data frames (text, binary, continuation) the server sent, and those of them with RSV1 set (a message
        /// compressed with permessage-deflate). Plain connections only.
        public var serverDataFrames = 0
        public var serverCompressedFrames = 0
    }
}

/// Watches both directions of one plain connection for ``FaultProxy/Observation``: what each peer sent, before any
/// fault changes it.
struct ConnectionObserver {
    private var client = WebSocketWireReader()
    private var server = WebSocketWireReader()
    private var clientClosed = false

    /// Scans bytes the client sent; applies what it saw to `record`.
    mutating func client(_ buffer: ByteBuffer, into record: inout FaultProxy.Observation) {
        guard !clientClosed else { return }
        client.feed(buffer)
        _ = client.nextHead()
        while let frame = client.nextFrame() {
            guard let code = frame.closeCode else { continue }
            clientClosed = true
            record.closeFrameFromClient = true
            record.closeCodeFromClient = code
            record.closeBeforeEnd = !record.clientEnded
            return
        }
    }

    /// Scans bytes the server sent: the upgrade answer's extensions, then its frames.
    mutating func server(_ buffer: ByteBuffer, into record: inout FaultProxy.Observation) {
        server.feed(buffer)
        if let head = server.nextHead() {
            for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "sec-websocket-extensions" {
                    record.serverExtensions = String(parts[1].drop { $0 == " " })
                }
            }
        }
        while let frame = server.nextFrame() {
            guard frame.opcode < 0x8 else { continue }
            record.serverDataFrames += 1
            if frame.rsv1 { record.serverCompressedFrames += 1 }
        }
    }
}
