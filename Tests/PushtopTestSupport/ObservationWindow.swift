import Foundation

/// How long an end-to-end test watches a running system (a churning roster, a cluster under a canary): short by
/// default, so that CI stays quick, and as long as the test was written for when a soak is asked for
/// (`PUSHTOP_SOAK=1`). Assertions that count samples scale with the window.
public enum ObservationWindow {
    /// Whether `PUSHTOP_SOAK` asks for the long windows (set and not `0`).
    public static let isSoak: Bool = {
        guard let value = ProcessInfo.processInfo.environment["PUSHTOP_SOAK"] else { return false }
        return !value.isEmpty && value != "0"
    }()

    /// `soak` seconds under `PUSHTOP_SOAK=1`, else `ci` seconds.
    public static func seconds(soak: Double, ci: Double) -> Double { isSoak ? soak : ci }
}
