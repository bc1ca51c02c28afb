extension CaseContext {
    /// `GET path` (on `node`), failing the case unless the server answers 200; `what` names the request in that
    /// failure (`GET path` unless told).
    func mustGet(_ path: String, query: [String: String] = [:], node: Int = 0, what: String? = nil) async throws
        -> APIAnswer
    {
        let answer = await request(node: node, method: "GET", path: path, query: query)
        try ok(answer, what ?? "GET \(path)")
        return answer
    }

    /// `POST path` with `body`, failing the case unless the server answers 200; `what` names the request in that
    /// failure.
    @discardableResult
    func mustPost(_ path: String, body: String, what: String) async throws -> APIAnswer {
        let answer = await request(method: "POST", path: path, body: body)
        try ok(answer, what)
        return answer
    }
}
