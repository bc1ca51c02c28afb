import Hummingbird

/// What the routes that stay on Hummingbird's router (the console feed) share with the HTTP API. The API itself is
/// ``HTTPAPICore``, served on the event loops by ``HTTPAPIHandler``.
enum PusherHTTPAPI {
    /// A router request's query parameters (the first of a repeated name).
    static func query(_ request: Request) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in request.uri.queryParameters where result[String(key)] == nil {
            result[String(key)] = String(value)
        }
        return result
    }
}
