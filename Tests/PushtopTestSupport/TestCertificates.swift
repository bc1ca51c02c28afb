import Foundation
import NIOSSL

/// A private CA and a server certificate for `localhost` and `127.0.0.1` signed by it, made at run time with the
/// `openssl` command (nothing secret is committed).
public struct TestCertificates: Sendable {
    public let directory: URL
    /// The CA certificate (PEM): what a client is told to trust.
    public var caFile: String { directory.appendingPathComponent("ca.pem").path }
    public var serverCertificateFile: String { directory.appendingPathComponent("server.pem").path }
    public var serverKeyFile: String { directory.appendingPathComponent("server.key").path }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func make() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(to: directory.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(
            directory,
            ["req", "-x509"] + ec + [
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=pushtop test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try run(directory, ["req"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"])
        try run(
            directory,
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "server.ext",
            ])
        return TestCertificates(directory: directory)
    }

    /// A server configuration presenting the server certificate.
    public func serverTLSConfiguration() throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(serverCertificateFile).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: serverKeyFile, format: .pem)))
    }

    private static func run(_ directory: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Failure(description: "openssl \(arguments.first ?? "") failed: \(text)")
        }
    }
}
