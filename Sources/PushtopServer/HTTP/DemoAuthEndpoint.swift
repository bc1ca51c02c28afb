import Foundation
import Hummingbird
import PusherProtocol

/// `POST /pusher/auth`: a development-only authorization endpoint that signs any private, presence or
/// encrypted subscription, so a teammate can join a demo without knowing the secret; and
/// `POST /pusher/user-auth`, which signs any user in (see `DemoAuthEndpoint+Users.swift`).
///
/// It takes the form parameters pusher-js and pushtop send (`socket_id`, `channel_name`) and, for presence
/// channels, the identity from `user_id` (or `name`) and optional `user_info` (a JSON object). JSON bodies
/// with the same fields work too.
///
/// - Important: It authorizes everybody. Never expose it where the app's channels must be protected; it is
///   on in `pushtop serve`/`pushtop demo` only because those are for demos and tests.
struct DemoAuthEndpoint: Sendable {
    /// The apps served now: the endpoint signs with the credentials of the current file (a reload changes them).
    let apps: AppDirectory

    func register(on router: Router<BasicRequestContext>) {
        router.post("/pusher/auth") { request, _ in
            await respond { () async throws(APIFailure) -> Response in
                let parameters = try await Self.parameters(request)
                return try authorize(parameters, app: await app(for: parameters["socket_id"]))
            }
        }
        router.post("/pusher/user-auth") { request, _ in
            await respond { () async throws(APIFailure) -> Response in
                let parameters = try await Self.parameters(request)
                return try authenticateUser(parameters, app: await app(for: parameters["socket_id"]))
            }
        }
    }

    /// The app whose credentials sign for `socketID`: the app that has the socket on this node, else the first app
    /// served now (after the last reload).
    func app(for socketID: String?) async -> AppCredentials {
        let nodes = apps.nodes
        if nodes.count > 1, let socketID {
            for node in nodes where await node.hub.socketIDs().contains(socketID) { return node.credentials }
        }
        return nodes[0].credentials
    }

    /// The query, form and JSON body parameters of a request (the body wins). The query and a form body are read
    /// by the one rule (``URLQuery``): a repeated name or bad percent-encoding is a 400 naming the parameter.
    static func parameters(_ request: Request) async throws(APIFailure) -> [String: String] {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: 64 * 1024)
        } catch {
            throw APIFailure(status: 413, message: "Request body too large")
        }
        var parameters = try PusherHTTPAPI.query(request).dictionary
        let text = String(buffer: buffer)
        if let json = JSONValue.parseIfJSON(text)?.objectValue {
            for (key, value) in json { parameters[key] = value.stringValue ?? value.jsonString }
        } else {
            // An `application/x-www-form-urlencoded` body is read by the query's rule.
            do {
                parameters.merge(try URLQuery(text).dictionary) { _, body in body }
            } catch {
                throw APIFailure(status: 400, message: "Form body: \(error.description)")
            }
        }
        return parameters
    }

    /// Signs one subscription request.
    func authorize(_ parameters: [String: String], app: AppCredentials) throws(APIFailure) -> Response {
        guard let socketID = parameters["socket_id"], EventsBody.isSocketID(socketID) else {
            throw .badRequest("socket_id is missing or not of the form 123.456")
        }
        guard let channel = parameters["channel_name"] else { throw .badRequest("channel_name is missing") }
        do {
            try ChannelName.validate(channel)
        } catch {
            throw .badRequest("Invalid channel name '\(channel)': \(error.description)")
        }
        let kind = ChannelKind(channelName: channel)
        guard kind.requiresAuthorization else {
            throw .badRequest("'\(channel)' is a public channel: it needs no authorization")
        }
        var response: [String: JSONValue] = [:]
        var channelData: String?
        if kind == .presence {
            let name = parameters["name"].flatMap { $0.isEmpty ? nil : $0 }
            let userID = parameters["user_id"].flatMap { $0.isEmpty ? nil : $0 } ?? name ?? "guest-\(socketID)"
            var info: JSONValue = ["name": .string(name ?? userID)]
            if let given = parameters["user_info"] {
                guard let parsed = JSONValue.parseIfJSON(given), parsed.objectValue != nil else {
                    throw .badRequest("user_info must be a JSON object")
                }
                info = parsed
            }
            let data = JSONValue.object(["user_id": .string(userID), "user_info": info]).jsonString
            channelData = data
            response["channel_data"] = .string(data)
        }
        response["auth"] = .string(
            ChannelAuthSignature.auth(
                key: app.key, secret: app.secret, socketID: socketID, channel: channel, channelData: channelData))
        if kind == .encrypted {
            let secret = ChannelAuthSignature.sharedSecret(channel: channel, masterKey: app.encryptionMasterKey)
            response["shared_secret"] = .string(Data(secret).base64EncodedString())
        }
        return .json(JSONValue.object(response).jsonString)
    }
}
