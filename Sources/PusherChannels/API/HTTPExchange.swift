import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 request on a connection of its own, answered in full: what the auth endpoints' form POST and the
/// HTTP API client need, on the SwiftNIO the client already uses (no connection pool, no redirects).
///
/// `ClientBootstrap` → NIOSSL for `https://` (the system's trust roots plus `caFile`; SNI with the host name, none
/// for an IP address, whose certificate is then checked against the address) → NIOHTTP1 → ``HTTPExchangeHandler``.
/// The deadline covers everything from connecting to the last byte of the body.
struct HTTPExchange: Sendable {
    var method: HTTPMethod
    var url: String
    var headers: [(name: String, value: String)] = []
    var body: [UInt8]? = nil
    /// Seconds from the start of the connection to the end of the answer.
    var timeout: Double
    /// The longest body accepted, in bytes.
    var bodyLimit: Int = 16 << 20
    /// A PEM file of extra trusted certificates (a private CA), beside the system's.
    var caFile: String? = nil

    /// Sends the request and waits for the whole answer, whatever its status.
    /// - Throws: ``HTTPExchangeError``.
    func send() async throws(HTTPExchangeError) -> HTTPExchangeResponse {
        guard let target = HTTPURL(url) else { throw .invalidURL(url) }
        var sslContext: NIOSSLContext?
        if target.useTLS {
            do {
                var configuration = TLSConfiguration.makeClientConfiguration()
                if let caFile { configuration.additionalTrustRoots = [.file(caFile)] }
                sslContext = try NIOSSLContext(configuration: configuration)
            } catch {
                throw .unreachable("TLS setup failed: \(error)")
            }
        }
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let outcome = HTTPExchangeOutcome(promise: eventLoop.makePromise(), timeout: timeout)
        let (head, body, bodyLimit) = (requestHead(for: target), body, bodyLimit)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(HTTPExchangeOutcome.duration(timeout))
            .channelInitializer { [sslContext] channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let sslContext {
                        try sync.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: target.serverName))
                    }
                    try sync.addHTTPClientHandlers()
                    try sync.addHandler(
                        HTTPExchangeHandler(head: head, body: body, bodyLimit: bodyLimit, outcome: outcome))
                }
            }
        eventLoop.execute { outcome.start(on: eventLoop) }
        bootstrap.connect(host: target.host, port: target.port).whenComplete { result in
            switch result {
            case .success(let channel): outcome.attach(channel)
            case .failure(let error): outcome.fail(.unreachable(Self.describe(error)))
            }
        }
        do {
            return try await outcome.promise.futureResult.get()
        } catch let error as HTTPExchangeError {
            throw error
        } catch {
            throw .unreachable(Self.describe(error))
        }
    }

    private func requestHead(for target: HTTPURL) -> HTTPRequestHead {
        var fields = HTTPHeaders()
        fields.add(name: "Host", value: target.hostHeader)
        for header in headers { fields.add(name: header.name, value: header.value) }
        if body != nil || method == .POST || method == .PUT {
            fields.replaceOrAdd(name: "Content-Length", value: String(body?.count ?? 0))
        }
        fields.replaceOrAdd(name: "Connection", value: "close")
        return HTTPRequestHead(version: .http1_1, method: method, uri: target.target, headers: fields)
    }

    /// A short, user-facing reason for a failed connection.
    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connectTimeout") { return "connection timed out" }
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
            return "TLS handshake failed: the server's certificate is not trusted: \(text)"
        }
        if error is NIOSSLError || error is NIOSSLExtraError { return "TLS failed: \(text)" }
        return text
    }
}
