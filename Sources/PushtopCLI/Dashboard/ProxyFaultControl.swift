import AsyncHTTPClient
import Foundation
import NIOCore
import PusherProtocol
import PushtopDashboard
import Synchronization

/// The dashboard console's `K`: asks the `pushtop proxy` behind a console feed to close one socket, with a signed
/// `POST /apps/{id}/proxy/faults` (`{"rule":"close:4200,socket=ID,times=1"}`, signed with the app's secret like an
/// HTTP API POST). The proxy then closes the socket, posts a `fault` row and, once the client is back, a `recovered`
/// row: the console shows both.
///
/// With several feeds, the row's node (a feed's `hello` names it) says which one to ask; ``ConsoleNodeTap`` tells it
/// which feed named which node.
final class ProxyFaultControl: ConsoleControl {
    private let endpoints: [ConsoleFeedEndpoint]
    private let httpClient: HTTPClient
    /// A feed's node (its `hello`'s `node`) → the feed (``ConsoleFeedEndpoint/description``).
    private let sources = Mutex<[String: String]>([:])

    init(endpoints: [ConsoleFeedEndpoint], httpClient: HTTPClient = .shared) {
        self.endpoints = endpoints
        self.httpClient = httpClient
    }

    /// Remembers which feed a node's rows come from.
    func learn(_ snapshot: ConsoleSnapshot) {
        guard let node = snapshot.node else { return }
        sources.withLock { $0[node] = snapshot.source }
    }

    /// The feed to ask about a row of `node`: the one that named it, else the only one.
    func endpoint(for node: String?) -> ConsoleFeedEndpoint? {
        if let node, let source = sources.withLock({ $0[node] }),
            let endpoint = endpoints.first(where: { $0.description == source })
        {
            return endpoint
        }
        return endpoints.count == 1 ? endpoints[0] : nil
    }

    func inject(_ request: ConsoleFaultRequest) async throws(ConsoleControlError) -> String {
        guard let endpoint = endpoint(for: request.node) else {
            throw ConsoleControlError(
                endpoints.isEmpty
                    ? "no console feed to ask: K works on a pushtop proxy's feed"
                    : "cannot tell which feed shows node \(request.node ?? "?")")
        }
        let body = Array(JSONValue.object(["rule": .string(request.rule)]).jsonString.utf8)
        var http = HTTPClientRequest(url: endpoint.signedURL(method: "POST", path: endpoint.faultsPath, body: body))
        http.method = .POST
        http.headers.add(name: "Content-Type", value: "application/json")
        http.body = .bytes(ByteBuffer(bytes: body))
        let status: Int
        let answer: String
        do {
            let response = try await httpClient.execute(http, timeout: .seconds(5))
            status = Int(response.status.code)
            answer = String(buffer: try await response.body.collect(upTo: 64 << 10))
        } catch {
            throw ConsoleControlError("could not reach \(endpoint) to close socket \(request.socketID): \(error)")
        }
        switch status {
        case 200..<300:
            return "\(endpoint) closes socket \(request.socketID) with \(request.code) (fault \(request.rule))"
        case 404:
            throw ConsoleControlError(
                "\(endpoint) has no fault control (404): K works on a pushtop proxy's feed, not on a server's")
        default:
            let reason = JSONValue.parseIfJSON(answer)?["error"]?.stringValue ?? String(answer.prefix(200))
            throw ConsoleControlError("\(endpoint) refused the fault (\(status)): \(reason)")
        }
    }
}

extension ConsoleFeedEndpoint {
    /// The proxy's fault control endpoint (`pushtop proxy`).
    var faultsPath: String { "/apps/\(appID)/proxy/faults" }

    /// The signed URL of a request with this method, path and body, signed at `timestamp` (seconds since 1970).
    func signedURL(
        method: String, path: String, body: [UInt8], timestamp: Int = Int(Date().timeIntervalSince1970)
    ) -> String {
        let parameters = APIRequestSignature.sign(
            method: method, path: path, key: key, secret: secret, body: body, timestamp: timestamp)
        let queryString = parameters.sorted { $0.key < $1.key }
            .map { "\(Self.escape($0.key))=\(Self.escape($0.value))" }
            .joined(separator: "&")
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "https" : "http")://\(hostPart):\(port)\(Self.escapePath(path))?\(queryString)"
    }
}
