// dashboard-preview: the real dashboard on a synthetic feed (no network), for the tmux end-to-end tests
// and for trying the UI. Options: --rate N (events/s), --theme NAME|PATH, --capacity N (log entries),
// --save-dir PATH, --no-mouse; --bench prints frame and reduce timings; --console demo|none|webhooks|unavailable
// [--console-rate N] feeds the debug console (`C`) scripted rows and source states.
import PushtopDashboard
import PushtopDashboardFakes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

var rate = 20
var options = DashboardOptions()
var replayFile: String?
var replaySpeed = 1.0
var consoleMode: ScriptedConsole.Mode?
var consoleRate = 5
options.credentials = KnownCredentials(key: "preview-key", secret: "preview-secret")
options.api = ScriptedAPI()
var arguments = CommandLine.arguments.dropFirst()
while let arg = arguments.popFirst() {
    switch arg {
    case "--rate": rate = Int(arguments.popFirst() ?? "") ?? rate
    case "--theme": options.theme = arguments.popFirst()
    case "--capacity": options.logCapacity = Int(arguments.popFirst() ?? "") ?? options.logCapacity
    case "--save-dir": options.saveDirectory = arguments.popFirst() ?? "."
    case "--no-mouse": options.mouse = false
    case "--record": options.recordPath = arguments.popFirst()
    case "--replay": replayFile = arguments.popFirst()
    case "--speed": replaySpeed = Double(arguments.popFirst() ?? "") ?? 1
    case "--console":
        guard let mode = arguments.popFirst().flatMap(ScriptedConsole.Mode.init(rawValue:)) else {
            print("dashboard-preview: --console takes demo, none, webhooks or unavailable")
            Glibc.exit(64)
        }
        consoleMode = mode
    case "--console-rate": consoleRate = Int(arguments.popFirst() ?? "") ?? consoleRate
    case "--bench":
        Bench.run()
        Glibc.exit(0)
    case "--help", "-h":
        print(
            "usage: dashboard-preview [--rate N] [--theme NAME|PATH] [--capacity N] [--save-dir PATH] [--no-mouse] [--record FILE] [--replay FILE [--speed N]] [--console demo|none|webhooks|unavailable [--console-rate N]]"
        )
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

if let replayFile {
    guard let f = fopen(replayFile, "r") else {
        print("dashboard-preview: cannot read \(replayFile)")
        Glibc.exit(66)
    }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    fclose(f)
    var player = ReplayPlayer(file: replayFile, text: String(decoding: bytes, as: UTF8.self))
    player.configure(speed: replaySpeed, playing: true)
    let reason = try await runReplay(player, options: options)
    Glibc.exit(reason.exitStatus)
}
options.recordEndpoint = "127.0.0.1:0 (scripted, no TLS)"
options.recordChannels = ["market-data", "private-orders", "cache-config", "presence-lobby"]
let feed = ScriptedFeed()
feed.startDemo(eventsPerSecond: rate)
let console = ScriptedConsole()
if let consoleMode {
    options.console = console.feed
    console.start(consoleMode, rowsPerSecond: consoleRate, now: { DashboardClock.now() })
}
let reason = try await runDashboard(feed: feed.feed, backend: feed.backend, options: options)
console.finish()
feed.finish()
Glibc.exit(reason.exitStatus)
