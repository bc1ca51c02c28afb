import Testing

@testable import PushtopCLI

/// The receiver's signature check: what verifies, and the likely cause it names when a signature does not.
@Suite struct WebhookSignatureCheckTests {
    static let app = WebhookCredential(appID: "1", key: "key-1", secret: "secret-1")
    static let other = WebhookCredential(appID: "2", key: "key-2", secret: "secret-2")
    static let check = WebhookSignatureCheck(credentials: [app, other])
    /// What Pusher sends: compact JSON, keys in the server's order, `/` not escaped.
    static let body = #"{"time_ms":1732190000123,"events":[{"name":"channel_occupied","channel":"orders/eu"}]}"#

    static func sign(_ text: String, _ secret: String) -> String {
        WebhookSignatureCheck.signature(secret: secret, body: Array(text.utf8))
    }

    static func cause(key: String?, signature: String?, received: String) -> String? {
        if case .rejected(_, _, _, let cause) = check.check(key: key, signature: signature, body: Array(received.utf8))
        {
            return cause
        }
        return nil
    }

    @Test func theAppsOwnSignatureVerifies() {
        let verdict = Self.check.check(
            key: "key-2", signature: Self.sign(Self.body, "secret-2"), body: Array(Self.body.utf8))
        #expect(verdict == .verified(Self.other))
        // Upper-case hex is the same signature.
        let upper = Self.sign(Self.body, "secret-1").uppercased()
        #expect(Self.check.check(key: "key-1", signature: upper, body: Array(Self.body.utf8)) == .verified(Self.app))
    }

    @Test func withoutCredentialsNothingIsChecked() {
        let check = WebhookSignatureCheck(credentials: [])
        #expect(check.check(key: "x", signature: "y", body: Array(Self.body.utf8)) == .unchecked)
    }

    @Test func aWrongSecretIsNamedWithExpectedAndReceived() {
        let received = Self.sign(Self.body, "not-the-secret")
        let verdict = Self.check.check(key: "key-1", signature: received, body: Array(Self.body.utf8))
        #expect(
            verdict
                == .rejected(
                    appID: "1", expected: Self.sign(Self.body, "secret-1"), received: received,
                    cause: WebhookSignatureCheck.Cause.wrongSecret))
    }

    @Test func anotherAppsSecretOrKeyIsNamed() {
        // The key names app 1, the body is signed with app 2's secret.
        #expect(
            Self.cause(key: "key-1", signature: Self.sign(Self.body, "secret-2"), received: Self.body)
                == WebhookSignatureCheck.Cause.otherApp)
        // An unknown key, but the signature is a known app's.
        #expect(
            Self.cause(key: "key-9", signature: Self.sign(Self.body, "secret-1"), received: Self.body)
                == WebhookSignatureCheck.Cause.otherApp)
    }

    @Test func anUnknownKeyOrMissingHeadersAreNamed() {
        #expect(
            Self.cause(key: "key-9", signature: Self.sign(Self.body, "nobody"), received: Self.body)
                == WebhookSignatureCheck.Cause.unknownKey)
        #expect(
            Self.cause(key: "key-1", signature: nil, received: Self.body)
                == WebhookSignatureCheck.Cause.missingSignature)
        #expect(
            Self.cause(key: nil, signature: Self.sign(Self.body, "nobody"), received: Self.body)
                == WebhookSignatureCheck.Cause.missingKey)
    }

    /// The sender signed the compact body; a proxy re-encoded it before it arrived.
    @Test(arguments: [
        // Pretty-printed (Python's json.dumps(indent=4) keeps the key order).
        """
        {
            "time_ms": 1732190000123,
            "events": [
                {
                    "name": "channel_occupied",
                    "channel": "orders/eu"
                }
            ]
        }
        """,
        // Python's default separators.
        #"{"time_ms": 1732190000123, "events": [{"name": "channel_occupied", "channel": "orders/eu"}]}"#,
        // PHP's json_encode escapes slashes.
        #"{"time_ms":1732190000123,"events":[{"name":"channel_occupied","channel":"orders\/eu"}]}"#,
        // A trailing newline added.
        body + "\n",
        // Keys sorted (the sender wrote them in Pusher's documented order).
        #"{"events":[{"channel":"orders/eu","name":"channel_occupied"}],"time_ms":1732190000123}"#,
    ])
    func aBodyReencodedByAProxyIsNamed(received: String) {
        #expect(
            Self.cause(key: "key-1", signature: Self.sign(Self.body, "secret-1"), received: received)
                == WebhookSignatureCheck.Cause.reencoded)
    }

    @Test func aSlashEscapingSenderIsRecognisedToo() {
        // The sender (PHP) signed escaped slashes; a proxy decoded and re-encoded them plainly.
        let signed = #"{"time_ms":1,"events":[{"name":"channel_vacated","channel":"a\/b"}]}"#
        let received = #"{"time_ms":1,"events":[{"name":"channel_vacated","channel":"a/b"}]}"#
        #expect(
            Self.cause(key: "key-1", signature: Self.sign(signed, "secret-1"), received: received)
                == WebhookSignatureCheck.Cause.reencoded)
    }

    @Test func aSortedKeysSenderIsRecognisedToo() {
        // `pushtop serve` writes keys sorted; a proxy wrote them in another order, with spaces.
        let signed = #"{"events":[{"channel":"c","name":"member_added","user_id":"1"}],"time_ms":5}"#
        let received = #"{"time_ms": 5, "events": [{"name": "member_added", "user_id": "1", "channel": "c"}]}"#
        #expect(
            Self.cause(key: "key-2", signature: Self.sign(signed, "secret-2"), received: received)
                == WebhookSignatureCheck.Cause.reencoded)
    }
}
