import Hummingbird
import HummingbirdTLS
import NIOCore
import NIOSSL
import Synchronization

/// An HTTPS server on 127.0.0.1 with a private CA's certificate for `localhost` and `127.0.0.1`: it answers every
/// request with `status` and the line `METHOD TARGET BODY`, and records the server name (SNI) each TLS handshake
/// carried, so that a test sees what an HTTP client sends over TLS.
public final class LoopbackHTTPSEndpoint: Sendable {
    public let certificates: TestCertificates
    public let port: Int
    private let seen: SeenNames
    private let run: GracefulServerRun

    /// The server name of each handshake so far (`nil`: the client sent none).
    public var serverNames: [String?] { seen.names.withLock { $0 } }

    private init(certificates: TestCertificates, port: Int, seen: SeenNames, run: GracefulServerRun) {
        self.certificates = certificates
        self.port = port
        self.seen = seen
        self.run = run
    }

    deinit { run.stop() }

    /// Starts the server; it answers with `status`.
    public static func start(status: Int = 200) async throws -> LoopbackHTTPSEndpoint {
        let certificates = try TestCertificates.make()
        let seen = SeenNames()
        var tls = try certificates.serverTLSConfiguration()
        tls.sslContextCallback = { values, promise in
            seen.names.withLock { $0.append(values.serverHostname) }
            promise.succeed(NIOSSLContextConfigurationOverride())
        }
        let router = Router()
        router.post("**") { request, _ in try await echo(request, status: status) }
        router.get("**") { request, _ in try await echo(request, status: status) }
        let (port, run) = await runOnLoopback(
            router, server: try .tls(.http1(), tlsConfiguration: tls), label: "https-endpoint")
        return LoopbackHTTPSEndpoint(
            certificates: certificates, port: port, seen: seen, run: run)
    }

    private static func echo(_ request: Request, status: Int) async throws -> Response {
        let body = String(buffer: try await request.body.collect(upTo: 1 << 20))
        return Response(
            status: .init(code: status),
            body: .init(byteBuffer: ByteBuffer(string: "\(request.method) \(request.uri) \(body)")))
    }
}

/// The names the TLS callback records (shared between the callback and the endpoint).
private final class SeenNames: Sendable {
    let names = Mutex<[String?]>([])
}
