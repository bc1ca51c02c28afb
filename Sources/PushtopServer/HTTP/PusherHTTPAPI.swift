import Hummingbird
import PusherProtocol

/// What the routes that stay on Hummingbird's router (the console feed, the demo auth endpoint, `pushtop proxy`'s
/// console feed and control endpoint) share with the HTTP API. The API itself is ``HTTPAPICore``, served on the
/// event loops by ``HTTPAPIHandler``.
package enum PusherHTTPAPI {
    /// A router request's query, read by the one rule (``URLQuery``).
    /// - Throws: ``APIFailure`` 400 naming the parameter: a repeated name, bad percent-encoding.
    package static func query(_ request: Request) throws(APIFailure) -> URLQuery {
        do {
            return try URLQuery(request.uri.query ?? "")
        } catch {
            throw APIFailure(error)
        }
    }
}
