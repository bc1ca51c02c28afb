/// One step of `pushtop doctor`: what was checked, how it went, and what a user would try when it failed.
struct DoctorCheck: Sendable, Equatable {
    enum Outcome: Sendable, Equatable {
        case passed
        case failed(fix: String)
        /// Not run: nothing configured for it (e.g. no secret for the HTTP API).
        case skipped
    }

    /// The step's name, as printed: `DNS`, `TCP`, `TLS`, `WebSocket`, `Pusher`, `auth`, `HTTP API`.
    var name: String
    /// What passed (`resolved to 127.0.0.1`), or the problem.
    var detail: String
    var outcome: Outcome

    static func passed(_ name: String, _ detail: String) -> DoctorCheck {
        .init(name: name, detail: detail, outcome: .passed)
    }
    static func failed(_ name: String, _ detail: String, fix: String) -> DoctorCheck {
        .init(name: name, detail: detail, outcome: .failed(fix: fix))
    }
    static func skipped(_ name: String, _ detail: String) -> DoctorCheck {
        .init(name: name, detail: detail, outcome: .skipped)
    }

    var failed: Bool { if case .failed = outcome { return true } else { return false } }

    /// The lines printed for this step.
    var lines: [String] {
        let padded = name.padding(toLength: 10, withPad: " ", startingAt: 0)
        switch outcome {
        case .passed: return ["ok    \(padded)\(detail)"]
        case .skipped: return ["skip  \(padded)\(detail)"]
        case .failed(let fix): return ["FAIL  \(padded)\(detail)", "      fix: \(fix)"]
        }
    }
}
