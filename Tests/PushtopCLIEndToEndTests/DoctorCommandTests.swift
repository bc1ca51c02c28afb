import Foundation
import PushtopServer
import PushtopTestSupport
import Testing

/// `pushtop doctor` (the real binary) against the embedded server, and against targets broken in one way each.
@Suite(.timeLimit(.minutes(1))) struct DoctorCommandTests {
    private func target(_ server: EmbeddedServer) -> [String] {
        ["--host", "127.0.0.1", "--port", String(server.port), "--no-tls"]
    }

    @Test func everyCheckPassesAgainstTheEmbeddedServer() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let app = server.configuration.app
        let run = try await CommandRun.run(
            "pushtop", ["doctor", "--key", app.key, "--secret", app.secret, "--app-id", app.id] + target(server))
        await server.shutdown()
        #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
        for step in ["DNS", "TCP", "WebSocket", "Pusher", "auth", "HTTP API"] {
            #expect(run.stdout.contains("ok    \(step)"), "\(step) passed: \(run.stdout)")
        }
        #expect(run.stdout.contains("skip  TLS"))
        #expect(run.stdout.contains("all 6 checks passed (1 skipped)"))
        #expect(!run.stdout.contains(app.secret) && !run.stderr.contains(app.secret), "the secret is never printed")
    }

    @Test func aRefusedPortFailsAtTCPWithTheFix() async throws {
        // A port below the ephemeral range, bound and freed: nothing listens there, and no test's port-0 server or
        // outgoing connection takes it meanwhile (a freed ephemeral port was taken once while the suites ran).
        let port = try freeLocalPort()
        let run = try await CommandRun.run(
            "pushtop", ["doctor", "--key", "k", "--host", "127.0.0.1", "--port", String(port), "--no-tls"])
        #expect(run.status == 1)
        #expect(run.stdout.contains("ok    DNS"))
        #expect(run.stdout.contains("FAIL  TCP       cannot connect to 127.0.0.1:\(port): connection refused"))
        #expect(run.stdout.contains("fix: nothing listens on 127.0.0.1:\(port)"))
        #expect(!run.stdout.contains("WebSocket"), "stops at the first failure: \(run.stdout)")
    }

    @Test func aWrongKeyFailsWith4001AndPointsAtTheKey() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let run = try await CommandRun.run("pushtop", ["doctor", "--key", "not-the-key"] + target(server))
        await server.shutdown()
        #expect(run.status == 1)
        #expect(run.stdout.contains("ok    WebSocket"))
        #expect(run.stdout.contains("FAIL  Pusher    refused with 4001"))
        #expect(run.stdout.contains("check --key"))
        #expect(run.stderr.contains("Pusher failed"))
    }

    @Test func aBadSecretFailsAtTheHTTPAPIWith401() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let app = server.configuration.app
        let run = try await CommandRun.run(
            "pushtop",
            [
                "doctor", "--key", app.key, "--auth-endpoint", server.authEndpointURL!, "--secret", "not-the-secret",
                "--app-id", app.id,
            ] + target(server))
        await server.shutdown()
        #expect(run.status == 1)
        #expect(run.stdout.contains("ok    auth      subscribed to private-pushtop-doctor, signed by endpoint"))
        #expect(run.stdout.contains("FAIL  HTTP API  GET /apps/\(app.id)/channels: HTTP 401"))
        #expect(run.stdout.contains("fix: the API rejected the signature: --secret and --app-id"))
    }

    @Test func aLocallySignedSubscriptionWithTheWrongSecretFailsAtAuth() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let run = try await CommandRun.run(
            "pushtop", ["doctor", "--key", server.configuration.app.key, "--secret", "wrong"] + target(server))
        await server.shutdown()
        #expect(run.status == 1)
        #expect(run.stdout.contains("FAIL  auth"))
        #expect(run.stdout.contains("--secret must be this app's secret"))
    }

    @Test func tlsAgainstAPlainServerFailsAtTLSWithTheNoTLSHint() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let run = try await CommandRun.run(
            "pushtop", ["doctor", "--key", "k", "--host", "127.0.0.1", "--port", String(server.port), "--timeout", "3"])
        await server.shutdown()
        #expect(run.status == 1)
        #expect(run.stdout.contains("FAIL  TLS"))
        #expect(run.stdout.contains("add --no-tls"))
    }
}
