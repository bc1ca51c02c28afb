// dashboard-preview: the real dashboard on a synthetic feed (no network), for the tmux end-to-end tests
// and for trying the UI. Options: --rate N (events/s), --theme NAME|PATH, --capacity N (log entries),
// --save-dir PATH, --no-mouse; --bench prints frame and reduce timings.
import PushtopDashboard

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

var rate = 20
var options = DashboardOptions()
var arguments = CommandLine.arguments.dropFirst()
while let arg = arguments.popFirst() {
    switch arg {
    case "--rate": rate = Int(arguments.popFirst() ?? "") ?? rate
    case "--theme": options.theme = arguments.popFirst()
    case "--capacity": options.logCapacity = Int(arguments.popFirst() ?? "") ?? options.logCapacity
    case "--save-dir": options.saveDirectory = arguments.popFirst() ?? "."
    case "--no-mouse": options.mouse = false
    case "--bench":
        Bench.run()
        Glibc.exit(0)
    case "--help", "-h":
        print("usage: dashboard-preview [--rate N] [--theme NAME|PATH] [--capacity N] [--save-dir PATH] [--no-mouse]")
        Glibc.exit(0)
    default:
        print("dashboard-preview: unknown option \(arg)")
        Glibc.exit(64)
    }
}
var environment: [String: String] = [:]
var envp = environ
while let entry = envp.pointee {
    let text = String(cString: entry)
    if let eq = text.firstIndex(of: "=") {
        environment[String(text[..<eq])] = String(text[text.index(after: eq)...])
    }
    envp += 1
}
options.environment = environment

let feed = ScriptedFeed()
feed.startDemo(eventsPerSecond: rate)
let reason = try await runDashboard(events: feed.events, backend: feed.backend, options: options)
feed.finish()
Glibc.exit(reason.exitStatus)
