import Hummingbird
import PusherProtocol

extension PusherHTTPAPI {
    /// `POST /apps/{app_id}/users/{user_id}/terminate_connections` (the server SDKs'
    /// `terminate_user_connections`): closes every connection signed in as the user; answers `{}`.
    func registerUserRoutes(on router: Router<BasicRequestContext>) {
        router.post("/apps/:appID/users/:userID/terminate_connections") { request, context in
            await respond { () async throws(APIFailure) -> Response in
                _ = try await checked(request, context)
                let userID = context.parameters.get("userID") ?? ""
                if let problem = UserIDs.problem(userID) { throw .badRequest("Invalid user id '\(userID)': \(problem)") }
                await hub.terminateConnections(ofUser: userID)
                return .json("{}")
            }
        }
    }
}
