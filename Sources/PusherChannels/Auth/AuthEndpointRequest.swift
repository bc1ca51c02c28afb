import Foundation
import NIOHTTP1

/// The form POST that channel authorization and user authentication endpoints share (pusher-js's `ajax`
/// transport): `application/x-www-form-urlencoded` fields and extra headers, answered with JSON.
struct AuthEndpointRequest {
    var url: String
    var headers: [(name: String, value: String)]
    var fields: [(String, String)]
    var timeout: Double

    /// The form body.
    var formBody: String {
        fields.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")
    }

    /// Posts the form and returns the body of a 2xx answer.
    /// - Throws: ``AuthError`` (`status`, `timeout`, `unreachable`).
    func send() async throws(AuthError) -> String {
        try Self.require2xx(try await exchange())
    }

    /// The body of a 2xx answer. - Throws: ``AuthError/status(_:body:)`` for any other status.
    static func require2xx(_ answer: (status: Int, body: String)) throws(AuthError) -> String {
        guard (200..<300).contains(answer.status) else {
            throw .status(answer.status, body: AuthError.snippet(answer.body))
        }
        return answer.body
    }

    /// Posts the form and returns the status and body, whatever the status (the auth inspector shows both).
    /// - Throws: ``AuthError`` (`timeout`, `unreachable`).
    func exchange() async throws(AuthError) -> (status: Int, body: String) {
        var request = HTTPExchange(method: .POST, url: url, timeout: timeout, bodyLimit: 1 << 20)
        request.headers =
            [
                ("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json"),
            ] + headers
        request.body = Array(formBody.utf8)
        do {
            let response = try await request.send()
            return (response.status, response.text)
        } catch .timeout {
            throw .timeout(seconds: timeout)
        } catch {
            throw .unreachable(AuthError.snippet(error.description))
        }
    }

    private static let formAllowed: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._*")
        return set
    }()

    static func formEncode(_ s: String) -> String {
        (s.addingPercentEncoding(withAllowedCharacters: formAllowed) ?? s).replacingOccurrences(of: "%20", with: "+")
    }
}
