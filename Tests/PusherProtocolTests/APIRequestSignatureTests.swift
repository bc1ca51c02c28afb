import Testing

@testable import PusherProtocol

/// The HTTP API's signature, on the worked example of Pusher's REST API documentation (its values checked with
/// Python's `hmac`), as the server checks it: the string to sign assembled without a `String`, the hex signature
/// compared without one.
@Suite struct APIRequestSignatureTests {
    static let body = #"{"name":"foo","channels":["project-3"],"data":"{\"some\":\"data\"}"}"#
    static let signature = "da454824c97ba181a32ccc17a72625ba02771f50b50e1e7430e47a1f3f457e6c"
    static let pairs: [(name: String, value: String)] = [
        ("body_md5", "ec365a775a4cd0599faeb73354201b6f"), ("auth_version", "1.0"),
        ("auth_key", "278d425bdf160c739803"), ("auth_timestamp", "1353088179"), ("auth_signature", signature),
    ]
    static let signer = HMACSigner(secret: "7ad3773142a6692b25b8")

    @Test func theDocumentedExampleIsSignedAsPusherSignsIt() {
        #expect(APIRequestSignature.bodyMD5(Array(Self.body.utf8)) == "ec365a775a4cd0599faeb73354201b6f")
        let text = APIRequestSignature.stringToSign(method: "post", path: "/apps/3/events", pairs: Self.pairs)
        #expect(
            text
                == "POST\n/apps/3/events\nauth_key=278d425bdf160c739803&auth_timestamp=1353088179&auth_version=1.0&body_md5=ec365a775a4cd0599faeb73354201b6f"
        )
        #expect(Self.signer.hex(text) == Self.signature)
        let checked = APIRequestSignature.withStringToSign(method: "POST", path: "/apps/3/events", pairs: Self.pairs) {
            #expect(Array($0) == Array(text.utf8))
            return Self.signer.isHexSignature(Self.signature, of: $0)
        }
        #expect(checked)
        #expect(
            APIRequestSignature.isSignature(
                Self.signature, method: "POST", path: "/apps/3/events", pairs: Self.pairs, signer: Self.signer))
    }

    @Test func anyOtherSignatureIsRefused() {
        var wrong = Array(Self.signature.utf8)
        wrong[63] = UInt8(ascii: "d")
        for given in [
            String(decoding: wrong, as: UTF8.self), String(Self.signature.dropLast()), Self.signature + "0", "",
            Self.signature.uppercased(),
        ] {
            let accepted = APIRequestSignature.isSignature(
                given, method: "POST", path: "/apps/3/events", pairs: Self.pairs, signer: Self.signer)
            #expect(!accepted, "\(given)")
        }
        let otherSecret = HMACSigner(secret: "7ad3773142a6692b25b9")
        let accepted = APIRequestSignature.isSignature(
            Self.signature, method: "POST", path: "/apps/3/events", pairs: Self.pairs, signer: otherSecret)
        #expect(!accepted)
    }

    @Test func keysAreLowerCasedAndSortedWithTheirValues() {
        let pairs: [(name: String, value: String)] = [("B", "2"), ("a", "1"), ("AUTH_SIGNATURE", "x"), ("c", "")]
        let text = APIRequestSignature.stringToSign(method: "GET", path: "/apps/1/channels", pairs: pairs)
        #expect(text == "GET\n/apps/1/channels\na=1&b=2&c=")
        #expect(APIRequestSignature.stringToSign(method: "GET", path: "/", pairs: []) == "GET\n/\n")
    }
}
