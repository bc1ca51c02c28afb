import Hummingbird
import PusherProtocol

extension PusherHTTPAPI {
    /// `POST /apps/{app_id}/users/{user_id}/terminate_connections` (the server SDKs'
    /// `terminate_user_connections`): closes every connection signed in as the user; answers `{}`.
    ///
    /// The same request without the `/apps/{app_id}` prefix is accepted too (signed for that path): the official
    /// Python SDK (`pusher` 3.3) sends it there.
    /// Without an app id in the path, the app is the one whose key the request's `auth_key` names.
    static func registerUserRoutes(on router: Router<BasicRequestContext>, apps: AppDirectory) {
        router.post("/apps/:appID/users/:userID/terminate_connections") { request, context in
            await respond(refused: Self.reporter(apps, request, context)) { () async throws(APIFailure) -> Response in
                let api = try Self.api(apps, context)
                _ = try await api.checked(request, context)
                return try await api.terminate(context.parameters.get("userID") ?? "")
            }
        }
        router.post("/users/:userID/terminate_connections") { request, context in
            await respond(refused: Self.reporter(apps, request, context)) { () async throws(APIFailure) -> Response in
                let key = request.uri.queryParameters["auth_key"].map(String.init) ?? ""
                let api = try Self.api(of: apps.node(forKey: key) ?? apps.nodes[0])
                _ = try await api.checked(request, context, pathHasAppID: false)
                return try await api.terminate(context.parameters.get("userID") ?? "")
            }
        }
    }

    private func terminate(_ userID: String) async throws(APIFailure) -> Response {
        if let problem = UserIDs.problem(userID) { throw .badRequest("Invalid user id '\(userID)': \(problem)") }
        await hub.terminateConnections(ofUser: userID)
        return .json("{}")
    }
}
