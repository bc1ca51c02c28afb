import Foundation
import NIOSSL
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing
import WSClient

/// `wss://` and `https://` on one port, with a self-signed certificate made for the test.
@Suite("TLS")
struct TLSTests {
    /// Makes a self-signed certificate for 127.0.0.1 with the `openssl` command.
    static func makeCertificate() throws -> (directory: URL, files: TLSFiles) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw RawSocket.Failure(description: "openssl failed") }
        return (directory, TLSFiles(certificatePath: cert, keyPath: key))
    }

    @Test func wssAndHTTPSShareThePort() async throws {
        let (directory, files) = try await offloaded { try Self.makeCertificate() }
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer({ $0.tls = files }) { server in
            #expect(server.webSocketURL.hasPrefix("wss://127.0.0.1:"))
            #expect(server.httpURL.hasPrefix("https://127.0.0.1:"))

            // A TLS WebSocket client that trusts the certificate gets connection_established.
            var configuration = WebSocketClientConfiguration()
            configuration.sniHostname = "localhost"  // NIOSSL sends no SNI for an IP literal
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(files.certificatePath)
            let greeting = Greeting()
            try await WebSocketClient.connect(
                url: "wss://127.0.0.1:\(server.port)/app/\(server.configuration.app.key)?protocol=7",
                configuration: configuration, tlsConfiguration: tls, logger: .init(label: "test.tls")
            ) { inbound, outbound, _ in
                for try await message in inbound.messages(maxSize: 1 << 16) {
                    if case .text(let text) = message, text.contains("pusher:connection_established") {
                        await greeting.received()
                        try await outbound.close(.normalClosure, reason: nil)
                        return
                    }
                }
            }
            #expect(await greeting.seen)

            // HTTPS on the same port: curl trusting the certificate reaches the API (unsigned, so 401).
            let url = "\(server.httpURL)/apps/\(server.configuration.app.id)/channels"
            let output = try await offloaded { () -> String in
                let curl = Process()
                curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                curl.arguments = [
                    "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", files.certificatePath, url,
                ]
                let pipe = Pipe()
                curl.standardOutput = pipe
                try curl.run()
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                curl.waitUntilExit()
                return output
            }
            #expect(output == "401")

            // Plain HTTP on the TLS port gets no API answer.
            let plain = try await offloaded { () -> String in
                let socket = try RawSocket(port: server.port, timeout: 5)
                try socket.send("GET /apps/1/channels HTTP/1.1\r\nHost: x\r\n\r\n")
                return String(decoding: socket.readToEnd().bytes, as: UTF8.self)
            }
            #expect(!plain.hasPrefix("HTTP/1.1 401"))
        }
    }
}

private actor Greeting {
    private(set) var seen = false
    func received() { seen = true }
}
