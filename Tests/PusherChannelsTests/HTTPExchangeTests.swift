import Foundation
import PushtopTestSupport
import Testing

@testable import PusherChannels

#if canImport(Glibc)
    import Glibc
#endif

/// The client's own HTTP/1.1 exchange (auth endpoints, the HTTP API client) against real servers on loopback:
/// HTTPS with the host name sent as SNI and the certificate checked, none for an IP address, statuses as answers,
/// typed failures for an untrusted certificate, a refused port and a server that never answers.
@Suite(.timeLimit(.minutes(1))) struct HTTPExchangeTests {
    @Test func httpsToAHostNameSendsItAsServerNameAndPostsTheBody() async throws {
        let server = try await LoopbackHTTPSEndpoint.start()
        var exchange = HTTPExchange(
            method: .POST, url: "https://localhost:\(server.port)/pusher/auth?x=1", timeout: 10,
            caFile: server.certificates.caFile)
        exchange.headers = [("Content-Type", "application/x-www-form-urlencoded")]
        exchange.body = Array("socket_id=1.2&channel_name=private-a".utf8)
        let response = try await exchange.send()
        #expect(response.status == 200)
        #expect(response.text == "POST /pusher/auth?x=1 socket_id=1.2&channel_name=private-a")
        #expect(server.serverNames == ["localhost"])
    }

    @Test func httpsToAnIPAddressSendsNoServerNameAndChecksTheAddress() async throws {
        let server = try await LoopbackHTTPSEndpoint.start(status: 403)
        let response = try await HTTPExchange(
            method: .GET, url: "https://127.0.0.1:\(server.port)/apps/1/channels", timeout: 10,
            caFile: server.certificates.caFile
        ).send()
        #expect(response.status == 403)
        #expect(response.text == "GET /apps/1/channels ")
        #expect(server.serverNames == [nil])
    }

    @Test func anUntrustedCertificateIsATypedFailure() async throws {
        let server = try await LoopbackHTTPSEndpoint.start()
        let error = await #expect(throws: HTTPExchangeError.self) {
            try await HTTPExchange(method: .GET, url: "https://localhost:\(server.port)/", timeout: 10).send()
        }
        guard case .unreachable(let why)? = error else {
            Issue.record("expected .unreachable, got \(String(describing: error))")
            return
        }
        #expect(why.contains("not trusted"))
    }

    @Test func aRefusedPortIsUnreachable() async throws {
        let dead = try DeadPort()
        let error = await #expect(throws: HTTPExchangeError.self) {
            try await HTTPExchange(method: .GET, url: "http://127.0.0.1:\(dead.port)/", timeout: 5).send()
        }
        #expect(error == .unreachable("connection refused"))
    }

    @Test func theDeadlineCoversAServerThatNeverAnswers() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let started = ContinuousClock.now
        let api = PusherAPIClient(
            configuration: PusherAPIConfiguration(
                appID: "1", key: "k", secret: "s", host: "127.0.0.1", port: silent.port, timeout: 0.5))
        let error = await #expect(throws: PusherAPIError.self) {
            try await api.channels()
        }
        #expect(error == .transport("no answer within 0.5 s"))
        // Given up at the deadline, not left waiting: the deadline, and room for a loaded machine.
        #expect(ContinuousClock.now - started < LoadedMachine.bound(.milliseconds(500)))
    }

    @Test func notAnHTTPURLIsRefusedBeforeConnecting() async throws {
        let error = await #expect(throws: HTTPExchangeError.self) {
            try await HTTPExchange(method: .GET, url: "ftp://example.com/", timeout: 1).send()
        }
        #expect(error == .invalidURL("ftp://example.com/"))
    }
}

private struct SilentListenerFailure: Error {
    var errno: Int32
}

/// A loopback socket that listens but never accepts: the kernel completes connections, nobody ever answers.
private final class SilentListener: Sendable {
    let port: Int
    private let fd: Int32

    init() throws {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard fd >= 0, ok else { throw SilentListenerFailure(errno: errno) }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #endif
    }
}
