import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import PusherProtocol
import PushtopServer

/// The proxy's HTTP side: its own endpoints (the console feed, the fault control endpoint), signed with the app's
/// secret like the HTTP API, and everything else passed through to the upstream's HTTP API.
struct ProxyRoutes: Sendable {
    let core: ProxyCore
    let client: HTTPClient

    /// Bodies passed through at most (Pusher's own limit is 10 KB per event, batches up to 10 events).
    static let maxBodyBytes = 10 << 20

    func register(on router: Router<BasicRequestContext>) {
        router.add(middleware: PassThrough(routes: self))
        router.get("/apps/:appID/console") { request, context in
            await console(request, context)
        }
        router.get("/apps/:appID/proxy/faults") { request, context in
            await control(request, context, body: []) { _, _ in
                jsonResponse(faultList(), status: 200)
            }
        }
        router.post("/apps/:appID/proxy/faults") { request, context in
            var request = request
            let body = (try? await request.collectBody(upTo: 1 << 20)).map { Array($0.readableBytesView) } ?? []
            return await control(request, context, body: body) { _, body in
                addFault(body)
            }
        }
        router.delete("/apps/:appID/proxy/faults/:id") { request, context in
            await control(request, context, body: []) { _, _ in
                guard let id = context.parameters.get("id").flatMap(Int.init), core.faults.remove(id: id) else {
                    return ConsoleEndpoint.error(404, "No fault rule with that id")
                }
                return jsonResponse(faultList(), status: 200)
            }
        }
    }

    /// The app's console feed, as `pushtop serve` serves it (`ConsoleEndpoint`), from what the proxy relays.
    private func console(_ request: Request, _ context: BasicRequestContext) async -> Response {
        await control(request, context, body: []) { query, _ in
            do throws(APIFailure) {
                let types = try ConsoleEndpoint.types(in: query)
                return ConsoleEndpoint.stream(core.console, types: types, request: request) { [self] in hello() }
            } catch {
                return ConsoleEndpoint.error(error.status, error.message)
            }
        }
    }

    /// `event: hello`: the proxy as a node of the app, its open connections and the channels they are in.
    private func hello() -> String {
        let relays = core.allRelays
        let hello = JSONValue.orderedObject([
            ("node", .string(core.console.nodeID)),
            ("app_id", .string(core.console.appID)),
            ("time_ms", .number(Double(ConsoleClock.nowMs()))),
            ("connections", .number(Double(relays.count))),
            ("channels", .array(core.occupancy.occupied.map(JSONValue.string))),
            ("cluster", .bool(false)),
            ("proxy", .bool(true)),
        ])
        return "event: hello\ndata: \(hello)\n\n"
    }

    /// Checks the app id, the query (``URLQuery``'s rule: a repeated name or bad percent-encoding is a 400 naming
    /// the parameter) and the signature (the app's key and secret, as the HTTP API), then answers.
    private func control(
        _ request: Request, _ context: BasicRequestContext, body: [UInt8],
        answer: (URLQuery, [UInt8]) async -> Response
    ) async -> Response {
        guard let app = core.configuration.app, context.parameters.get("appID") == app.id else {
            return ConsoleEndpoint.error(404, "Unknown app id (the proxy serves its console for --app-id only)")
        }
        let query: URLQuery
        do throws(APIFailure) {
            query = try PusherHTTPAPI.query(request)
            try APIRequestVerifier(key: app.key, secret: app.secret).verify(
                method: request.method.rawValue, path: request.uri.path, query: query, body: body)
        } catch {
            core.logger.notice(
                "refused a badly written, unsigned or badly signed control request",
                metadata: ["path": "\(request.uri.path)", "status": "\(error.status)"])
            return ConsoleEndpoint.error(error.status, error.message)
        }
        return await answer(query, body)
    }

    private func addFault(_ body: [UInt8]) -> Response {
        guard let json = JSONValue.parseIfJSON(String(decoding: body, as: UTF8.self)) else {
            return ConsoleEndpoint.error(400, "The body is not JSON: {\"rule\":\"close:4200,socket=1.2\"}")
        }
        do throws(FaultRuleError) {
            let entry = core.addFault(try FaultRule(json: json))
            return jsonResponse(
                JSONValue.orderedObject([("id", .number(Double(entry.id))), ("rule", .string(entry.text))]),
                status: 201)
        } catch {
            return ConsoleEndpoint.error(400, error.description)
        }
    }

    private func faultList() -> String {
        let list = core.faults.entries.map { item in
            JSONValue.object([
                "id": .number(Double(item.entry.id)), "rule": .string(item.entry.text),
                "applied": .number(Double(item.applied)),
            ])
        }
        return JSONValue.object([
            "faults": .array(list), "connections": .number(Double(core.allRelays.count)),
        ]).jsonString
    }

    // MARK: Passing the HTTP API through

    /// Everything the proxy does not answer itself goes to the upstream's HTTP side, as it came.
    struct PassThrough: RouterMiddleware {
        typealias Context = BasicRequestContext
        let routes: ProxyRoutes

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws -> Response
        {
            let path = request.uri.path
            if path.hasPrefix("/apps/"), path.hasSuffix("/console") || path.contains("/proxy/faults") {
                return try await next(request, context)
            }
            return await routes.forward(request, caller: ProxyPeer.address(of: request))
        }
    }

    func forward(_ request: Request, caller: String?) async -> Response {
        var request = request
        let uri = request.uri.description
        var outgoing = HTTPClientRequest(url: core.configuration.apiBase + uri)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        copyHeaders(of: request, caller: caller, to: &outgoing)
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maxBodyBytes)
        } catch {
            return ConsoleEndpoint.error(413, "Request body too large for the proxy")
        }
        if body.readableBytes > 0 || request.method == .post || request.method == .put {
            outgoing.body = .bytes(body)
        }
        do {
            let response = try await client.execute(outgoing, timeout: .seconds(30))
            let answer = try await response.body.collect(upTo: Self.maxBodyBytes)
            if (200..<300).contains(Int(response.status.code)), request.method == .post {
                apiMessages(path: request.uri.path, body: body, caller: caller)
            }
            return Response(
                status: .init(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase),
                headers: Self.passedHeaders(of: response), body: ResponseBody(byteBuffer: answer))
        } catch {
            return upstreamFailed(request, caller: caller, error: error)
        }
    }

    /// The request's headers for the upstream: hop-by-hop ones and the proxy's own peer field left out, the caller
    /// added to `X-Forwarded-For`.
    private func copyHeaders(of request: Request, caller: String?, to outgoing: inout HTTPClientRequest) {
        var forwardedFor: [String] = []
        for field in request.headers {
            let name = field.name.canonicalName
            if name == ProxyPeer.fieldName { continue }
            if name == "x-forwarded-for" {
                forwardedFor.append(field.value)
                continue
            }
            guard !["host", "connection", "content-length", "transfer-encoding", "keep-alive"].contains(name)
            else { continue }
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        if let caller { forwardedFor.append(caller) }
        if !forwardedFor.isEmpty {
            outgoing.headers.add(name: "X-Forwarded-For", value: forwardedFor.joined(separator: ", "))
        }
    }

    /// The upstream's answer headers for the caller, without the hop-by-hop ones.
    private static func passedHeaders(of response: HTTPClientResponse) -> HTTPFields {
        var headers = HTTPFields()
        for (name, value) in response.headers {
            let lower = name.lowercased()
            guard !["content-length", "transfer-encoding", "connection", "keep-alive"].contains(lower),
                let field = HTTPFields.Element.Name(name)
            else { continue }
            headers.append(.init(name: field, value: value))
        }
        return headers
    }

    /// A 502 when the upstream's HTTP API did not answer: logged and shown on the console.
    private func upstreamFailed(_ request: Request, caller: String?, error: any Error) -> Response {
        core.logger.notice(
            "the upstream's HTTP API did not answer",
            metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
        var row = ConsoleRow(type: .apiError, timeMs: ConsoleClock.nowMs())
        row.status = 502
        row.reason = "the upstream's HTTP API did not answer: \(error)"
        row.url = "\(request.method.rawValue) \(request.uri.path)"
        row.remoteAddress = caller
        row.rule = "upstream"
        core.post(row)
        return ConsoleEndpoint.error(502, "The upstream's HTTP API did not answer (pushtop proxy)")
    }

    /// `api_message` rows for a publish the upstream accepted.
    private func apiMessages(path: String, body: ByteBuffer, caller: String?) {
        guard core.console.isActive else { return }
        let batch = path.hasSuffix("/batch_events")
        guard batch || path.hasSuffix("/events"),
            let json = JSONValue.parseIfJSON(String(buffer: body))
        else { return }
        let events = batch ? (json["batch"]?.arrayValue ?? []) : [json]
        let now = ConsoleClock.nowMs()
        for event in events {
            var row = ConsoleRow(type: .apiMessage, timeMs: now)
            let channels =
                event["channels"]?.arrayValue?.compactMap(\.stringValue) ?? event["channel"]?.stringValue.map { [$0] }
                ?? []
            row.channel = channels.first
            row.channels = channels
            row.event = event["name"]?.stringValue
            ConsoleRowData.fill(&row, event["data"]?.stringValue ?? event["data"]?.jsonString ?? "")
            row.excludedSocketID = event["socket_id"]?.stringValue
            row.batch = batch
            row.remoteAddress = caller
            core.post(row)
        }
    }
}

/// The caller's address: the connection puts it in a header of its own before the router sees the request.
enum ProxyPeer {
    static let fieldName = "x-pushtop-peer-address"

    static func tagging(_ request: Request, address: String?) -> Request {
        var head = request.head
        head.headerFields[.init(fieldName)!] = address
        return Request(head: head, body: request.body)
    }

    static func address(of request: Request) -> String? { request.headers[.init(fieldName)!] }
}

/// A JSON answer.
func jsonResponse(_ text: String, status: Int) -> Response {
    Response(
        status: .init(code: status), headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(string: text)))
}
