import Logging
import NIOCore
import NIOHTTP1
import PusherProtocol

/// Pusher's HTTP API, decided in one place: route → admit → verify → parse → limits → result.
///
/// The event-loop handler (``HTTPAPIHandler``) reads a request and asks ``decide(_:)``; it only moves bytes.
/// Admission is ordered so that a stranger never costs an app anything: the app id must exist (else 404) and the
/// request must be signed with that app's secret (else 401) before the app's own rules apply (timestamp,
/// `body_md5`, disabled 403, the `api_requests_per_second` token, 429). A stranger's refusal is counted in
/// ``ServerRefusals`` and logged (escaped), and appears in no app's debug feed; every later refusal is an
/// `api_error` row of the app.
///
/// The query is read by the one rule (``URLQuery``): a name given twice or bad percent-encoding is a 400 naming the
/// parameter, never the first or the last value. Publishes
/// reach the hub's inbox while the request is decided, so a connection's publishes arrive in its request order.
/// What needs the hub's answer (channel queries, `info`, terminating connections) is ``Decision/later(_:)``.
struct HTTPAPICore: Sendable {
    /// What the API needs of one app; made once per settings (``AppNode/api``).
    struct App: Sendable {
        var verifier: APIRequestVerifier
        var limits: PusherLimits
        var hub: PusherHub
    }

    /// One request, read whole.
    struct Request {
        var method: HTTPMethod
        /// The request target: path and query, as sent.
        var uri: String
        var appID: String?
        var route: HTTPAPIRoute
        /// The body; `nil` when it passed ``maxBodyBytes`` (then it was not kept).
        var body: [UInt8]?
        /// The caller's address, for the debug feed.
        var remoteAddress: SocketAddress?
        /// The connection's event loop: its publishes are queued from it.
        var loop: any EventLoop
    }

    /// The answer, now or once the hub answered.
    enum Decision: Sendable {
        case answer(APIResponse)
        case later(@Sendable () async -> APIResponse)
    }

    /// Bytes of a request body the API reads.
    static let maxBodyBytes = 1 << 20

    let apps: AppDirectory
    let logger: Logger

    func decide(_ request: Request) -> Decision {
        guard request.method == request.route.method else {
            return .answer(
                APIResponse(
                    status: 405, body: "\(request.route.method.rawValue) only\n", json: false,
                    headers: [("allow", request.route.method.rawValue)]))
        }
        let path: String
        var query: URLQuery
        do {
            let (sentPath, sentQuery) = try URLQuery.split(target: request.uri)
            (path, query) = (String(sentPath), sentQuery)
        } catch {
            return refuse(APIFailure(error), String(request.uri.prefix { $0 != "?" }))
        }
        let node: AppNode
        if let id = request.appID {
            guard let found = apps.node(forID: id) else {
                var failure = APIFailure(status: 404, message: "Unknown app id '\(ErrorText.excerpt(id))'")
                failure.refusal = .unknownApp
                return refuse(failure, path)
            }
            node = found
        } else {
            // The app-less terminate route: the app is the one whose key signed the request.
            guard let key = query["auth_key"], let found = apps.node(forKey: key) else {
                var failure = APIFailure.unauthorized(
                    query["auth_key"] == nil ? "Missing authentication parameter(s): auth_key" : "Unknown auth_key",
                    rule: "auth_key")
                failure.refusal = query["auth_key"] == nil ? .unsigned : .wrongKey
                return refuse(failure, path)
            }
            node = found
        }
        let app = node.api
        do {
            query = try app.verifier.authenticate(method: request.method.rawValue, path: path, query: query)
        } catch {
            return refuse(error, path)
        }
        do throws(APIFailure) {
            try app.verifier.check(query: query, body: request.body)
            guard let body = request.body else {
                throw APIFailure(
                    status: 413, message: "Request body exceeds \(Self.maxBodyBytes) bytes", rule: "max_body_bytes")
            }
            try node.admitAPIRequest()
            return try serve(request, app, query, body, path: path)
        } catch {
            report(error, app, request, path: path)
            return .answer(APIResponse(error))
        }
    }

    /// A stranger's request: counted for the server, logged, shown to no app.
    private func refuse(_ failure: APIFailure, _ path: String) -> Decision {
        if let reason = failure.refusal { apps.refusals.count(reason) }
        logger.debug(
            "refused an HTTP API request",
            metadata: [
                "status": "\(failure.status)", "reason": "\(failure.refusal?.rawValue ?? "-")",
                "path": "\(StrangerText.printable(path, limit: 200))",
            ])
        return .answer(APIResponse(failure))
    }

    /// An `api_error` row in the app's debug feed.
    private func report(_ failure: APIFailure, _ app: App, _ request: Request, path: String) {
        let console = app.hub.console
        guard console.isActive else { return }
        console.apiError(
            failure, method: request.method.rawValue, path: path,
            caller: request.remoteAddress.map(ConsoleConnectionInfo.describe))
    }
}
