import Foundation

/// A condition that did not become true in time.
public struct TimedOut: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "timed out waiting for \(what)" }
}

/// Polls `condition` every 5 ms until it holds, or throws ``TimedOut`` after `timeout` seconds: the one polling
/// helper of the tests.
///
/// It runs on the caller's actor (`isolation`), so an actor's test helper may check its own state in `condition`.
public func waitUntil(
    timeout: Double = 10, _ what: String = "condition",
    isolation: isolated (any Actor)? = #isolation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(5))
    }
    if try await condition() { return }
    throw TimedOut(what: what)
}
