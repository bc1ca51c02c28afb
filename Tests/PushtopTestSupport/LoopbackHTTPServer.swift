import Hummingbird
import HummingbirdCore
import Logging

/// Runs `router` as an HTTP server (`server`: HTTP/1, or with TLS or WebSocket upgrades) on 127.0.0.1 and a free
/// port (the test endpoints' common part); returns the port once it listens, and the run to stop it with.
func runOnLoopback(
    _ router: Router<BasicRequestContext>, server: HTTPServerBuilder = .http1(), label: String
) async -> (port: Int, run: GracefulServerRun) {
    let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
            portContinuation.finish()
        },
        logger: Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() }))
    let run = GracefulServerRun(app)
    var port = 0
    for await p in portStream {
        port = p
        break
    }
    return (port, run)
}
