import ArgumentParser
import Foundation
import PusherChannels
import PushtopDashboard

/// Runs the dashboard on a client: subscribes, connects, hands the client's event batches to the curses
/// loop, and disconnects when it ends.
enum DashboardLauncher {
    /// The dashboard's client reads a busy socket at most every 5 ms: the screen draws 30 times a second, and under
    /// a firehose one wake-up then carries dozens of frames instead of one.
    static let readCoalescing = 0.005

    static func run(client: PusherClient, channels: [String], theme: String?, signIn: Bool = false, record: String? = nil,
        credentials: KnownCredentials? = nil) async throws -> Int32
    {
        // The HTTP API is on the WebSocket host for Pusher-compatible servers, api-CLUSTER.pusher.com for Pusher.
        var api: PusherAppAPI?
        if let credentials, let appID = credentials.appID {
            let o = client.options
            let configuration = o.host == nil
                ? PusherAPIConfiguration.cluster(o.cluster, appID: appID, key: credentials.key, secret: credentials.secret)
                : PusherAPIConfiguration(appID: appID, key: credentials.key, secret: credentials.secret,
                    host: o.resolvedHost, port: o.port ?? (o.connection.useTLS ? 443 : 80), useTLS: o.connection.useTLS)
            api = PusherAppAPI(client: PusherAPIClient(configuration: configuration))
        }
        let environment = ProcessInfo.processInfo.environment
        // Straight from the client's event loop, one hand-off per read burst (paced by `readCoalescing`); the
        // screen picks them up at its next frame.
        let (events, continuation) = AsyncStream.makeStream(of: [ClientEvent].self, bufferingPolicy: .unbounded)
        client.onEventBatch { continuation.yield($0) }
        // The wire inspector's frames (and each event's exact frame for the detail view), handed over the same way;
        // the dashboard keeps the newest and counts what it drops.
        let (frames, frameContinuation) = AsyncStream.makeStream(of: FrameBatch.self, bufferingPolicy: .unbounded)
        client.onFrames { frameContinuation.yield(FrameBatch(frames: $0, droppedSoFar: 0)) }
        for channel in channels { try await client.subscribe(channel) }
        if signIn { try await client.signIn() }
        await client.connect()
        // The connection pane shows the ping round-trip time, also on a busy connection that never idles.
        let pinger = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                await client.ping()
                try? await Task.sleep(for: .seconds(9))
            }
        }
        defer { pinger.cancel() }
        let backend = ClientDashboardBackend(client: client)
        var options = DashboardOptions(theme: theme, environment: environment)
        options.recordPath = record
        options.recordEndpoint = backend.connectionDescription
        options.recordChannels = channels
        options.credentials = credentials
        options.api = api
        let exit = try await runDashboard(events: events, frames: frames, backend: backend, options: options)
        await client.shutdown()
        continuation.finish()
        frameContinuation.finish()
        return exit.exitStatus
    }

    /// Where the dashboard's logs go: `--log-file`, else `PUSHTOP_LOG_FILE`, else nowhere (never the screen).
    static func bootstrapLogging(_ logFile: String?) {
        if let path = logFile ?? ProcessInfo.processInfo.environment["PUSHTOP_LOG_FILE"] {
            PushtopLogging.bootstrap(.file(path))
        } else {
            PushtopLogging.bootstrap(.none)
        }
    }

    /// Refuses to start curses without a terminal (pipes, CI): a clear message instead of a broken screen.
    static func requireTerminal() throws {
        guard isatty(0) == 1, isatty(1) == 1 else {
            throw ValidationError("the dashboard needs a terminal (stdin and stdout); for scripts use 'pushtop watch'")
        }
    }
}
