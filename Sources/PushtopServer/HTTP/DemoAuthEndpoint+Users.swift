import Hummingbird
import PusherProtocol

extension DemoAuthEndpoint {
    /// Signs a user in (`POST /pusher/user-auth`, pusher-js's default user-authentication path), as the server
    /// SDKs' `authenticate_user` does: `{"auth":"key:signature", "user_data":"{…}"}`.
    ///
    /// The user comes from the form: `user_id` (or `id`; default `guest-{socket_id}`), optional `user_info` (a
    /// JSON object) and `watchlist` (a JSON array of ids, or ids separated by commas).
    func authenticateUser(_ parameters: [String: String], app: AppCredentials) throws(APIFailure) -> Response {
        guard let socketID = parameters["socket_id"], EventsBody.isSocketID(socketID) else {
            throw .badRequest("socket_id is missing or not of the form 123.456")
        }
        let given = (parameters["user_id"] ?? parameters["id"]).flatMap { $0.isEmpty ? nil : $0 }
        let userID = given ?? "guest-\(socketID)"
        if let problem = UserIDs.problem(userID) { throw .badRequest("Invalid user id '\(userID)': \(problem)") }
        var userData: [String: JSONValue] = ["id": .string(userID)]
        if let info = parameters["user_info"] {
            guard let parsed = JSONValue.parseIfJSON(info), parsed.objectValue != nil else {
                throw .badRequest("user_info must be a JSON object")
            }
            userData["user_info"] = parsed
        }
        if let text = parameters["watchlist"], !text.isEmpty {
            let ids: [String]
            if let array = JSONValue.parseIfJSON(text)?.arrayValue {
                ids = array.compactMap(\.stringValue)
                guard ids.count == array.count else {
                    throw .badRequest("watchlist must be an array of user id strings")
                }
            } else {
                ids = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            }
            for id in ids {
                if let problem = UserIDs.problem(id) { throw .badRequest("Invalid watchlist id '\(id)': \(problem)") }
            }
            userData["watchlist"] = .array(ids.map(JSONValue.string))
        }
        let text = JSONValue.object(userData).jsonString
        let auth = UserAuthSignature.auth(key: app.key, secret: app.secret, socketID: socketID, userData: text)
        return .json(JSONValue.object(["auth": .string(auth), "user_data": .string(text)]).jsonString)
    }
}
