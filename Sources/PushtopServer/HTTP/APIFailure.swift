import Hummingbird
import PusherProtocol

/// An HTTP API request the server refuses: the status and the plain-text message Pusher would send.
package struct APIFailure: Error, CustomStringConvertible {
    package var status: Int
    package var message: String
    /// The rule the request broke, for the debug feed's `api_error` row (`signature`, `timestamp`, …).
    var rule: String? = nil
    /// What the debug feed says when it says more than ``message`` (a stale timestamp's skew).
    var detail: String? = nil
    /// Set when the request is a stranger's (an unknown app, no or a wrong signature): it is counted in
    /// ``ServerRefusals`` and shown in no app's debug feed.
    var refusal: ServerRefusals.Reason? = nil

    package var description: String { "\(status): \(message)" }

    static func badRequest(_ message: String) -> APIFailure { APIFailure(status: 400, message: message) }
    static func unauthorized(_ message: String, rule: String? = nil, detail: String? = nil) -> APIFailure {
        APIFailure(status: 401, message: message, rule: rule, detail: detail)
    }
}

extension APIFailure {
    /// A query that breaks ``URLQuery``'s rule: 400, the message naming the parameter. A repeated name is a
    /// stranger's ``ServerRefusals/Reason/repeatedParameter`` (which one was signed is ambiguous).
    init(_ error: URLQueryError) {
        self.init(status: 400, message: error.description)
        if case .repeated = error { refusal = .repeatedParameter }
    }
}

extension Response {
    /// A JSON response.
    static func json(_ text: String, status: Int = 200) -> Response {
        Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A plain-text error response, as Pusher's API sends.
    static func failure(_ failure: APIFailure) -> Response {
        Response(
            status: .init(code: failure.status), headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: failure.message + "\n")))
    }
}

/// Runs a handler, turning an ``APIFailure`` into its response.
func respond(
    refused: (APIFailure) -> Void = { _ in }, _ body: () async throws(APIFailure) -> Response
) async -> Response {
    do {
        return try await body()
    } catch {
        refused(error)
        return .failure(error)
    }
}
