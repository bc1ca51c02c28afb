import Foundation
import PushtopServer
import PushtopTestSupport
import Testing

/// One convention for TLS on every command that connects: `--tls` and `--no-tls` both parse (the last one given
/// wins), and the old spellings (`trigger --tls`, `watch`/`doctor`/`bench --no-tls`) keep working.
@Suite(.timeLimit(.minutes(1))) struct TLSFlagTests {
    @Test func triggerTakesNoTLSAndTLS() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let app = server.configuration.app
        let target = ["--port", String(server.port), "--app-id", app.id, "--key", app.key, "--secret", app.secret]
        let plain = try await CommandRun.run("pushtop", ["trigger", "--no-tls"] + target + ["c", "e", "{}"])
        let lastWins = try await CommandRun.run(
            "pushtop", ["trigger", "--tls", "--no-tls"] + target + ["c", "e", "{}"])
        // The old spelling still parses and is honoured: HTTPS to a plain HTTP server fails.
        let secure = try await CommandRun.run(
            "pushtop", ["trigger", "--tls"] + target + ["c", "e", "{}"], timeout: 30)
        await server.shutdown()
        #expect(plain.status == 0, "stderr: \(plain.stderr)")
        #expect(plain.stdout.hasPrefix("{"), "the server's JSON answer: \(plain.stdout)")
        #expect(lastWins.status == 0, "stderr: \(lastWins.stderr)")
        #expect(secure.status == 1)
        #expect(secure.stderr.contains("pushtop trigger:"), "\(secure.stderr)")
    }

    @Test func clientCommandsTakeTLSAndNoTLS() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let target = [
            "doctor", "--key", server.configuration.app.key, "--host", "127.0.0.1", "--port", String(server.port),
        ]
        let plain = try await CommandRun.run("pushtop", target + ["--no-tls"])
        let lastWins = try await CommandRun.run("pushtop", target + ["--tls", "--no-tls"])
        let secure = try await CommandRun.run("pushtop", target + ["--no-tls", "--tls"], timeout: 30)
        await server.shutdown()
        #expect(plain.stdout.contains("skip  TLS"), "\(plain.stdout)")
        #expect(plain.stdout.contains("ws://127.0.0.1:"), "\(plain.stdout)")
        #expect(lastWins.stdout.contains("skip  TLS"), "\(lastWins.stdout)")
        #expect(secure.stdout.contains("wss://127.0.0.1:"), "\(secure.stdout)")
        #expect(secure.stdout.contains("FAIL  TLS"), "a TLS handshake with a plain server fails: \(secure.stdout)")
    }

    @Test(arguments: ["watch", "doctor", "trigger", "bench", "dashboard"])
    func helpNamesBothSpellings(command: String) async throws {
        let run = try await CommandRun.run("pushtop", [command, "--help"], environment: ["COLUMNS": "200"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("--tls/--no-tls"), "\(command) --help: \(run.stdout)")
    }
}
