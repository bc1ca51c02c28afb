import ArgumentParser
import Foundation
import PusherChannels
import PushtopDashboard

/// Runs the dashboard on a client: subscribes, connects, hands the client's event batches to the curses
/// loop, and disconnects when it ends.
enum DashboardLauncher {
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
        let batches = client.eventBatches()
        let (events, continuation) = AsyncStream.makeStream(of: [ClientEvent].self, bufferingPolicy: .unbounded)
        let forward = Task {
            for await batch in batches {
                continuation.yield(batch)
                // The screen redraws at most 30 times a second: gathering events for 5 ms costs nothing visible
                // and saves the UI a wake-up per batch under a firehose.
                try? await Task.sleep(for: .milliseconds(5))
            }
            continuation.finish()
        }
        // The wire inspector's frames (and each event's exact frame for the detail view), gathered like events.
        let tap = client.frames(bufferSize: 20_000)
        let (frames, frameContinuation) = AsyncStream.makeStream(of: FrameBatch.self, bufferingPolicy: .bufferingNewest(64))
        let forwardFrames = Task {
            for await batch in tap {
                frameContinuation.yield(FrameBatch(frames: batch, droppedSoFar: tap.droppedCount))
                try? await Task.sleep(for: .milliseconds(5))
            }
            frameContinuation.finish()
        }
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
        forward.cancel()
        forwardFrames.cancel()
        await client.shutdown()
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
