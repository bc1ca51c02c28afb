import Foundation
import Hummingbird
import PusherProtocol

/// `GET /apps/{app_id}/console`: the app's debug feed as server-sent events, for the app's owner.
///
/// Signed like any HTTP API `GET` (`auth_key`, `auth_timestamp`, `auth_version`, `auth_signature`; the optional
/// `types=connection,api_message` filter is signed with the rest). A bad, missing or stale signature or an unknown
/// key: 401 with `{"error":…}` and nothing else; an unknown app id: 404; a disabled app: 403; an unknown type, a
/// repeated parameter (`types=error&types=api_message`) or bad percent-encoding: 400 naming it (``URLQuery``).
/// Otherwise `200 text/event-stream`: an `event: hello` (node, app, time, connections, occupied channels, cluster),
/// then one `data: <row>` per row, and `: keepalive` every ``keepAliveInterval``. The writer awaits the socket; the
/// server never awaits the writer (``ConsoleListener``).
package enum ConsoleEndpoint {
    static let keepAliveInterval: Duration = .seconds(15)

    static func register(on router: Router<BasicRequestContext>, apps: AppDirectory) {
        router.get("/apps/:appID/console") { request, context in
            let id = context.parameters.get("appID") ?? ""
            guard let node = apps.node(forID: id) else {
                // A stranger: counted for the server, in no app's rows.
                apps.refusals.count(.unknownApp)
                return error(404, "Unknown app id '\(ErrorText.excerpt(id))'")
            }
            let query: URLQuery
            do throws(APIFailure) {
                query = try PusherHTTPAPI.query(request)
                try APIRequestVerifier(key: node.credentials.key, secret: node.credentials.secret).verify(
                    method: "GET", path: request.uri.path, query: query, body: [])
            } catch {
                return Self.error(error.status, error.message)
            }
            guard node.settings.enabled else { return error(403, "App is disabled") }
            do throws(APIFailure) {
                return stream(node.hub, types: try types(in: query), request: request)
            } catch {
                return Self.error(error.status, error.message)
            }
        }
    }

    /// The feed's `types=connection,api_message` filter: `nil` (every type) when absent or empty.
    /// - Throws: ``APIFailure`` 400 for a name that is no ``ConsoleRowType``.
    package static func types(in query: URLQuery) throws(APIFailure) -> Set<ConsoleRowType>? {
        guard let list = query["types"], !list.isEmpty else { return nil }
        var wanted: Set<ConsoleRowType> = []
        for name in list.split(separator: ",") {
            guard let type = ConsoleRowType(rawValue: String(name)) else {
                throw .badRequest("Unknown row type '\(ErrorText.excerpt(String(name)))'")
            }
            wanted.insert(type)
        }
        return wanted
    }

    package static func error(_ status: Int, _ message: String) -> Response {
        .json(JSONValue.object(["error": .string(message)]).jsonString, status: status)
    }

    /// Streams the feed. The listener is registered inside the body's writer, where the response is written (before
    /// the hello is made, so no row after the hello is missed), and removed on every way out of it: a client gone
    /// before the writer runs costs nothing; one gone before or after the hello ends the feed (``ConsolePeer``
    /// tells the writer when the socket closes, a failed write too); so do a reload that removes the app and the
    /// server's stop (``ConsoleHub/finishAll()``).
    static func stream(_ hub: PusherHub, types: Set<ConsoleRowType>?, request: Request) -> Response {
        stream(hub.console, types: types, request: request) { await helloLine(hub) }
    }

    /// Streams `console`'s rows after the `event: hello` block that `hello` makes, with the same lifetime rules: the
    /// feed of any producer of rows (`pushtop proxy`'s too).
    package static func stream(
        _ console: ConsoleHub, types: Set<ConsoleRowType>?, request: Request,
        hello: @escaping @Sendable () async -> String
    ) -> Response {
        let body = ResponseBody { writer in
            let listener = console.addListener(types: types)
            defer { console.remove(listener) }
            ConsolePeer.whenGone(request) { listener.finish() }
            let ticker = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: keepAliveInterval)
                    listener.wake()
                }
            }
            defer { ticker.cancel() }
            try await writer.write(ByteBuffer(string: await hello()))
            loop: while true {
                switch await listener.next() {
                case .rows(let rows):
                    var buffer = ByteBuffer()
                    for row in rows {
                        buffer.writeString("data: ")
                        buffer.writeString(row.jsonLine)
                        buffer.writeString("\n\n")
                    }
                    try await writer.write(buffer)
                case .idle:
                    try await writer.write(ByteBuffer(string: ": keepalive\n\n"))
                case .finished:
                    break loop
                }
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: body)
    }

    /// `event: hello` with the node, the app, the time, the open connections and the occupied channels.
    static func helloLine(_ hub: PusherHub) async -> String {
        let console = hub.console
        let connections = await hub.connectionCount
        let channels = await hub.clusterChannelSummaries().filter(\.occupied).map(\.name).sorted()
        let hello = JSONValue.orderedObject([
            ("node", .string(console.nodeID)),
            ("app_id", .string(console.appID)),
            ("time_ms", .number(Double(ConsoleClock.nowMs()))),
            ("connections", .number(Double(connections))),
            ("channels", .array(channels.map(JSONValue.string))),
            ("cluster", .bool(console.clustered)),
        ])
        return "event: hello\ndata: \(hello)\n\n"
    }
}
