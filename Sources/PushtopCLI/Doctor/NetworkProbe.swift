import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// The low-level steps of `pushtop doctor`: resolve a name, open a TCP connection, complete a TLS handshake.
enum NetworkProbe {
    /// The addresses `host` resolves to (numeric, deduplicated), or the resolver's message.
    static func resolve(_ host: String) async -> Result<[String], ProbeError> {
        await Task.detached {
            var hints = addrinfo()
            #if canImport(Glibc)
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            #else
                hints.ai_socktype = SOCK_STREAM
            #endif
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, nil, &hints, &list)
            guard status == 0, let first = list else {
                return .failure(ProbeError(String(cString: gai_strerror(status))))
            }
            defer { freeaddrinfo(list) }
            var addresses: [String] = []
            var cursor: UnsafeMutablePointer<addrinfo>? = first
            while let entry = cursor {
                var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                if getnameinfo(
                    entry.pointee.ai_addr, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count),
                    nil, 0, NI_NUMERICHOST) == 0
                {
                    let address = String(
                        decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    if !addresses.contains(address) { addresses.append(address) }
                }
                cursor = entry.pointee.ai_next
            }
            return .success(addresses)
        }.value
    }

    /// Opens and closes a TCP connection; with `tlsServerName`, also completes a TLS handshake (verifying the
    /// certificate for that name).
    static func connect(host: String, port: Int, tlsServerName: String?, timeout: Double) async -> Result<
        Void, ProbeError
    > {
        let handshake = HandshakeWaiter()
        do {
            let tlsContext = tlsServerName == nil ? nil : try NIOSSLContext(configuration: .makeClientConfiguration())
            let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.milliseconds(Int64(timeout * 1000)))
                .channelInitializer { channel in
                    guard let tlsContext, let tlsServerName else { return channel.eventLoop.makeSucceededVoidFuture() }
                    return channel.eventLoop.makeCompletedFuture {
                        // SNI is not sent for IP literals (and NIOSSL refuses them as a server name).
                        let isIP = (try? SocketAddress(ipAddress: tlsServerName, port: 0)) != nil
                        let handler = try NIOSSLClientHandler(
                            context: tlsContext, serverHostname: isIP ? nil : tlsServerName)
                        try channel.pipeline.syncOperations.addHandler(handler)
                        try channel.pipeline.syncOperations.addHandler(handshake.handler(on: channel.eventLoop))
                    }
                }
            let channel = try await bootstrap.connect(host: host, port: port).get()
            if tlsServerName != nil, let handshakeDone = handshake.future {
                // A server that never answers the ClientHello is cut off after `timeout` (the close fails the wait).
                let closer = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) {
                    handshake.timedOut()
                    channel.close(promise: nil)
                }
                defer { closer.cancel() }
                do {
                    try await handshakeDone.get()
                } catch {
                    try? await channel.close()
                    return .failure(ProbeError(handshake.didTimeOut ? "the TLS handshake timed out" : describe(error)))
                }
            }
            try? await channel.close()
            return .success(())
        } catch {
            return .failure(ProbeError(describe(error)))
        }
    }

    /// A short, readable reason for a NIO or NIOSSL error.
    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connectTimeout") || text.contains("timed out") { return "timed out" }
        if text.contains("connectionRefused") || text.contains("Connection refused") || text.contains("errno: 111") {
            return "connection refused"
        }
        return text
    }
}

/// A failed probe, with the reason.
struct ProbeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Completes when the TLS handshake of a channel completes (or fails, or the channel closes first).
final class HandshakeWaiter: Sendable {
    private let state = Mutex<(future: EventLoopFuture<Void>?, timedOut: Bool)>((nil, false))

    final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        private let promise: EventLoopPromise<Void>
        private var done = false
        init(promise: EventLoopPromise<Void>) { self.promise = promise }

        private func finish(_ result: Result<Void, any Error>) {
            guard !done else { return }
            done = true
            promise.completeWith(result)
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .handshakeCompleted = event as? TLSUserEvent { finish(.success(())) }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            finish(.failure(error))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(.failure(ProbeError("the server closed the connection during the TLS handshake")))
            context.fireChannelInactive()
        }
    }

    /// The handler to add after the TLS handler; call once, on the channel's event loop.
    func handler(on loop: any EventLoop) -> Handler {
        let promise = loop.makePromise(of: Void.self)
        state.withLock { $0.future = promise.futureResult }
        return Handler(promise: promise)
    }

    var future: EventLoopFuture<Void>? { state.withLock { $0.future } }
    var didTimeOut: Bool { state.withLock { $0.timedOut } }
    func timedOut() { state.withLock { $0.timedOut = true } }
}
