import ArgumentParser
import Foundation
import Logging
import PusherChannels
import PushtopConfig
import PushtopDashboard

/// `pushtop watch`: headless; one JSON object per line on stdout, commands on stdin with `--stdin`.
struct WatchCommand: AsyncParsableCommand, NodeOptionHelp {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print channel events as JSON lines (headless, for scripts and tests).",
        discussion: """
            Lines: state, connecting_in, subscribed, subscription_error, unsubscribed, event, member_added, \
            member_removed, subscription_count, error, decryption_error; with --sign-in also signin, \
            signin_error, signout, user_event, watchlist; with --frames also frame.

            With --stdin, each input line is a command: {"action":"subscribe","channel":"x"}, unsubscribe, \
            trigger (channel, event, data), connect, disconnect, signin, signout.

            Exit 0 on SIGINT/SIGTERM or end of stdin, 1 when refused or out of retries.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .customLong("stdin"), help: "Read JSON commands from standard input, one per line.")
    var readStdin = false

    @Flag(
        name: .customLong("frames"),
        help: "Also print every WebSocket frame, both directions, as {\"type\":\"frame\",…} lines.")
    var printFrames = false

    @Option(
        name: .customLong("record"),
        help:
            "Also record what arrives to this file (the dashboard's recording format; replay with 'pushtop replay FILE')."
    )
    var record: String?

    @OptionGroup var nodes: NodeOption<WatchCommand>
    static let nodeHelp =
        "A node of the app (repeatable): one connection per node; each line names its node (\"node\":\"HOST:PORT\")."

    @Argument(help: "Channels to subscribe to.")
    var channels: [String] = []

    mutating func validate() throws {
        for channel in channels {
            do {
                try ChannelName.validate(channel)
            } catch {
                throw ValidationError("channel '\(channel)': \(error)")
            }
        }
        if channels.isEmpty && !readStdin && connection.profile == nil && !connection.signIn
            && connection.envFile.path == nil
        {
            throw ValidationError("name at least one channel (or use --stdin to subscribe later, or --sign-in)")
        }
    }

    func run() async throws {
        PushtopLogging.bootstrap(.standardError)
        let (environment, envFile) = try connection.resolvedEnvironment()
        connection.announceEnvFile(envFile, command: "watch")
        let profile = try connection.loadProfile(environment: environment)
        var options = try connection.clientOptions(environment: environment, profile: profile)
        options.logger = Logger(label: "pushtop.watch")
        let exit = ExitRequests()
        let clients = try makeClients(
            options: options, profile: profile, environment: environment, exit: exit.continuation)
        for client in clients {
            for channel in channels + (profile.channels ?? []) { try await client.subscribe(channel) }
            if connection.wantsSignIn(profile: profile) { try await client.signIn() }
            await client.connect()
        }

        var stdinTask: Task<Void, Never>?
        if readStdin {
            stdinTask = Task {
                for await line in StandardStreams.inputLines() {
                    for client in clients { await Self.perform(line: line, on: client) }
                }
                exit.continuation.yield(0)
            }
        }

        let code = await exit.status()
        stdinTask?.cancel()
        // Sends a close frame and waits (up to a second) for the server's reply before the process ends.
        for client in clients { await client.shutdown(closeTimeout: .seconds(1)) }
        if code != 0 { throw ExitCode(code) }
    }

    /// The clients, each with its writer started: one, or one per node (`--node`, or the profile's nodes).
    private func makeClients(
        options: PusherClientOptions, profile: Profile, environment: [String: String],
        exit: AsyncStream<Int32>.Continuation
    ) throws -> [PusherClient] {
        let nodeList = nodes.addresses(or: profile)
        var created: [PusherClient] = []
        if nodeList.isEmpty {
            let client = PusherClient(options: options)
            let recorder = try record.map {
                try RecordingWriter.open(
                    $0, options: options, channels: channels + (profile.channels ?? []),
                    secret: connection.secret ?? environment["PUSHER_APP_SECRET"] ?? profile.secret,
                    source: "pushtop watch")
            }
            WatchWriter(client: client, exit: exit, recorder: recorder).start(frames: printFrames)
            created.append(client)
        } else {
            if record != nil { throw ValidationError("--record takes one connection: not with --node") }
            for node in nodeList {
                var o = options
                o.host = node.host
                o.port = node.port
                let client = PusherClient(options: o)
                WatchWriter(client: client, exit: exit, node: node.description).start(frames: printFrames)
                created.append(client)
            }
        }
        return created
    }

    private static func perform(line: String, on client: PusherClient) async {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        do {
            switch try WatchCommandLine.parse(line) {
            case .subscribe(let channel):
                try await client.subscribe(channel)
            case .unsubscribe(let channel):
                await client.unsubscribe(channel)
            case .trigger(let channel, let event, let data):
                try await client.trigger(channel: channel, event: event, data: data)
            case .disconnect:
                await client.disconnect()
            case .connect:
                await client.connect()
            case .signIn:
                try await client.signIn()
            case .signOut:
                await client.signOut()
            }
        } catch {
            StandardStreams.writeOut(WatchLine.error(code: nil, message: String(describing: error)) + "\n")
        }
    }
}
