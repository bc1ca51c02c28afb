import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// Encrypted channels with the Swift secretbox against the official Python server SDK (`pusher` 3.3, which seals
/// with PyNaCl): an event the SDK encrypts and publishes is decrypted by the client, and what the client's
/// `ClientSecretBox` seals the SDK's key derivation and PyNaCl open. (A child process, hence this tier.)
@Suite(.timeLimit(.minutes(1)), .enabled(if: PythonSDK.isInstalled, "python3 with pusher and PyNaCl"))
struct EncryptedInteropTests {
    static let masterKey = Array("interop-master-key-of-32-bytes!!".utf8)

    static func python(_ script: String, _ arguments: [String]) async throws -> CommandRun {
        try await CommandRun.run("/usr/bin/env", ["python3", "-c", script] + arguments, timeout: 30)
    }

    @Test func anEventThePythonSDKEncryptsIsDecryptedByTheClient() async throws {
        try await withServer { server in
            let app = server.configuration.app
            let client = PusherClient(
                options: PusherClientOptions(
                    key: app.key, host: "127.0.0.1", port: server.port,
                    connection: ConnectionConfiguration(useTLS: false),
                    authorizer: SecretAuthorizer(
                        key: app.key, secret: app.secret, userID: "u", encryptionMasterKey: Self.masterKey)))
            let recorder = EventRecorder(client)
            try await client.subscribe("private-encrypted-orders")
            await client.connect()
            try await recorder.wait("subscribed") { $0.isSubscribed("private-encrypted-orders") }

            let script = """
                import base64, sys, pusher
                app_id, key, secret, port, master = sys.argv[1:6]
                client = pusher.Pusher(app_id=app_id, key=key, secret=secret, host="127.0.0.1", port=int(port),
                                       ssl=False, encryption_master_key_base64=master)
                client.trigger("private-encrypted-orders", "created", {"id": 42, "item": "caf\\u00e9 \\u2615"})
                """
            let run = try await Self.python(
                script,
                [app.id, app.key, app.secret, String(server.port), Data(Self.masterKey).base64EncodedString()])
            #expect(run.status == 0, "\(run.stderr)")
            try await waitUntil("the decrypted event") {
                recorder.channelEvents.contains { $0.name == "created" }
            }
            let event = try #require(recorder.channelEvents.first { $0.name == "created" })
            #expect(event.data == .object(["id": .number(42), "item": .string("café ☕")]), "\(event)")
            #expect(!recorder.all.contains { if case .decryptionError = $0 { true } else { false } })
            await client.shutdown()
        }
    }

    @Test func whatTheClientSealsPyNaClOpens() async throws {
        let channel = "private-encrypted-orders"
        // The key Pusher's libraries derive for the channel, as the client's authorizer does.
        let derived = try await Self.python(
            """
            import base64, sys
            from pusher.crypto import generate_shared_secret
            print(base64.b64encode(generate_shared_secret(sys.argv[1].encode(), sys.argv[2].encode())).decode())
            """, [channel, String(decoding: Self.masterKey, as: UTF8.self)])
        #expect(derived.status == 0, "\(derived.stderr)")
        let key = try #require(Data(base64Encoded: derived.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let sealer = SecretAuthorizer(key: "k", secret: "s", userID: "u", encryptionMasterKey: Self.masterKey)
        let authorization = try await sealer.authorize(channel: channel, socketID: "1.1")
        #expect(authorization.sharedSecret == key.base64EncodedString(), "the same derived key")

        let texts = ["", "x", #"{"id":1}"#, String(repeating: "pushtop ✓ ", count: 700)]
        for text in texts {
            let payload = try ClientSecretBox.sealPusherPayload(text, key: Array(key))
            let opened = try await Self.python(
                """
                import base64, json, sys, nacl.secret
                payload = json.loads(sys.argv[2])
                box = nacl.secret.SecretBox(base64.b64decode(sys.argv[1]))
                plain = box.decrypt(base64.b64decode(payload["ciphertext"]), base64.b64decode(payload["nonce"]))
                sys.stdout.write(base64.b64encode(plain).decode())
                """, [key.base64EncodedString(), payload])
            #expect(opened.status == 0, "\(opened.stderr)")
            #expect(Data(base64Encoded: opened.stdout).map { String(decoding: $0, as: UTF8.self) } == text)
        }
    }
}

/// Whether python3 can import the official server SDK and PyNaCl (scripts/install-deps --with-python installs them).
enum PythonSDK {
    static let isInstalled: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import pusher, nacl.secret"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
}
