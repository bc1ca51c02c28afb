import PusherChannels

/// The HTTP status of an HTTP API call: 200 when it succeeded, the server's status when it answered with an
/// error, nil when it failed some other way (no answer, a response that did not decode).
public func apiStatus(_ call: () async throws(PusherAPIError) -> PusherAPIResponse) async -> Int? {
    do {
        _ = try await call()
        return 200
    } catch {
        if case .status(let code, _) = error { return code }
        return nil
    }
}
