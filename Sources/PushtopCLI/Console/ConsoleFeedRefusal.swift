import Foundation
import PusherProtocol
import PushtopDashboard

/// What a node's answer to `GET /apps/{id}/console` other than a live stream means for the console: a state to
/// show, and whether trying again can help.
public struct ConsoleFeedRefusal: Sendable, Hashable {
    public var state: ConsoleSourceStatus.State
    /// `false`: the answer will not change by itself (a wrong secret, no feed there); the client stops.
    public var retry: Bool

    /// The meaning of `status` (with `body`, the answer's text, and `contentType`) from the feed at `endpoint`.
    /// The secret never appears in the text, even if a server echoed it.
    public init(status: Int, contentType: String?, body: String, endpoint: ConsoleFeedEndpoint) {
        let said = Self.serverText(body, secret: endpoint.secret)
        let app = endpoint.appID
        switch status {
        case 200:
            state = .unavailable(
                "\(Self.notServe(app)) (\(endpoint) answered 200 with \(contentType ?? "no content type"), not an event stream)"
            )
            retry = false
        case 401:
            state = .failed(
                "the secret does not sign requests for app \(app) on \(endpoint) (401\(said.map { ": \($0)" } ?? "")); "
                    + "check --secret or the env file's secret (and the clock, if the server says the timestamp is stale)"
            )
            retry = false
        case 403:
            state = .failed("app \(app) is disabled on \(endpoint) (403\(said.map { ": \($0)" } ?? ""))")
            retry = true
        case 404 where body.contains("Unknown app id"):
            state = .failed(
                "\(endpoint) has no app \(app) (404\(said.map { ": \($0)" } ?? "")); check --app-id or the env file")
            retry = false
        case 404, 405:
            state = .unavailable(Self.notServe(app))
            retry = false
        default:
            state = .failed("\(endpoint) answered \(status)\(said.map { ": \($0)" } ?? "")")
            retry = true
        }
    }

    /// The text shown when a server has no debug feed (Pusher, soketi, sockudo, Reverb, an older `pushtop serve`).
    public static func notServe(_ appID: String) -> String {
        "not a pushtop serve: no debug feed at /apps/\(appID)/console; run pushtop in front of your webhook endpoint: "
            + "pushtop webhooks --listen HOST:PORT --forward URL"
    }

    /// The server's message: a JSON `{"error": …}`'s text or the body, cut short, on one line, without the secret.
    static func serverText(_ body: String, secret: String) -> String? {
        var text = body.trimmingCharacters(in: .whitespacesAndNewlines)
        if let json = try? JSONValue(parsing: text), let error = json["error"]?.stringValue {
            text = error
        }
        text = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        if secret.count >= 1, text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: Redaction.marker)
        }
        if text.count > 200 { text = String(text.prefix(200)) + "…" }
        return text.isEmpty ? nil : text
    }
}
