import AsyncHTTPClient
import Foundation
import NIOCore

/// The form POST that channel authorization and user authentication endpoints share (pusher-js's `ajax`
/// transport): `application/x-www-form-urlencoded` fields and extra headers, answered with JSON.
struct AuthEndpointRequest {
    var url: String
    var headers: [(name: String, value: String)]
    var fields: [(String, String)]
    var timeout: Double
    var client: HTTPClient

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
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(string: formBody))
        let response: HTTPClientResponse
        var body: ByteBuffer
        do {
            response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
            body = try await response.body.collect(upTo: 1 << 20)
        } catch let error as HTTPClientError
            where error == .deadlineExceeded || error == .readTimeout
            || error == .connectTimeout
        {
            throw .timeout(seconds: timeout)
        } catch {
            throw .unreachable(AuthError.snippet(String(describing: error)))
        }
        return (Int(response.status.code), body.readString(length: body.readableBytes) ?? "")
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
