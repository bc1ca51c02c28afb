import Foundation

/// A condition that did not become true in time.
public struct TimedOut: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "timed out waiting for \(what)" }
}

/// Polls `condition` every 10 ms until it holds, or throws ``TimedOut`` after `timeout` seconds.
public func waitUntil(timeout: Double = 10, _ what: String = "condition",
                      _ condition: @Sendable () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    if try await condition() { return }
    throw TimedOut(what: what)
}
