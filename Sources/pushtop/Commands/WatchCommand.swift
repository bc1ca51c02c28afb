import ArgumentParser
import Foundation
import Logging
import PusherChannels

/// `pushtop watch`: headless; one JSON object per line on stdout, commands on stdin with `--stdin`.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print channel events as JSON lines (headless, for scripts and tests).",
        discussion: """
            Lines: state, connecting_in, subscribed, subscription_error, unsubscribed, event, member_added, \
            member_removed, subscription_count, error, decryption_error; with --sign-in also signin, \
            signin_error, signout, user_event, watchlist. With --stdin, each input line is a \
            command: {"action":"subscribe","channel":"x"}, unsubscribe, trigger (channel, event, data), \
            connect, disconnect, signin, signout. Exit 0 on SIGINT/SIGTERM or end of stdin, 1 when refused or \
            out of retries.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .customLong("stdin"), help: "Read JSON commands from standard input, one per line.")
    var readStdin = false

    @Option(name: .customLong("record"), help: "Also record what arrives to this file (the dashboard's recording format; replay with 'pushtop replay FILE').")
    var record: String?

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
        if channels.isEmpty && !readStdin && connection.profile == nil && !connection.signIn {
            throw ValidationError("name at least one channel (or use --stdin to subscribe later, or --sign-in)")
        }
    }

    func run() async throws {
        PushtopLogging.bootstrap(.standardError)
        let profile = try connection.loadProfile()
        var options = try connection.clientOptions(profile: profile)
        options.logger = Logger(label: "pushtop.watch")
        let client = PusherClient(options: options)
        let batches = client.eventBatches()
        let (exits, exit) = AsyncStream.makeStream(of: Int32.self)
        let recorder = try record.map { try RecordingWriter.open($0, options: options, channels: channels + (profile.channels ?? []),
            secret: connection.secret ?? ProcessInfo.processInfo.environment["PUSHER_APP_SECRET"] ?? profile.secret, source: "pushtop watch") }

        let consumer = Task {
            var lastClosure: ConnectionClosure?
            var reportedDrops = 0
            for await batch in batches {
                try? recorder?.record(batch, at: Date().timeIntervalSince1970)
                var out = ""
                let dropped = batches.droppedCount
                if dropped > reportedDrops {
                    // Never lose events silently: say how many a slow reader of stdout cost.
                    out += WatchLine.error(code: nil, message: "dropped \(dropped - reportedDrops) events: stdout is read too slowly (\(dropped) in all)") + "\n"
                    reportedDrops = dropped
                }
                for event in batch {
                    if let line = WatchLine.encode(event) {
                        out += line
                        out += "\n"
                    }
                    switch event {
                    case .closed(let closure):
                        lastClosure = closure
                    case .state(let change) where change.current == .failed:
                        StandardStreams.writeOut(out)
                        out = ""
                        let reason = await client.failureReason ?? lastClosure?.reason ?? "connection failed"
                        let code = lastClosure?.code.map { "close code \($0) (\(CloseCode.meaning(of: $0))): " } ?? ""
                        StandardStreams.writeErr("pushtop watch: connection failed: \(code)\(reason)\n")
                        exit.yield(1)
                    default:
                        break
                    }
                }
                if !out.isEmpty { StandardStreams.writeOut(out) }
            }
        }

        for channel in channels + (profile.channels ?? []) { try await client.subscribe(channel) }
        if connection.signIn { try await client.signIn() }
        await client.connect()

        let signals = SignalWatcher.terminationSignals()
        let signalTask = Task {
            for await _ in signals {
                exit.yield(0)
                return
            }
        }
        var stdinTask: Task<Void, Never>?
        if readStdin {
            stdinTask = Task {
                for await line in StandardStreams.inputLines() {
                    await Self.perform(line: line, on: client)
                }
                exit.yield(0)
            }
        }

        var code: Int32 = 0
        for await value in exits {
            code = value
            break
        }
        signalTask.cancel()
        stdinTask?.cancel()
        await client.shutdown()
        await consumer.value
        if code != 0 { throw ExitCode(code) }
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
