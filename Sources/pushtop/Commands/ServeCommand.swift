import ArgumentParser
import Dispatch
import Foundation
import Logging
import PushtopServer

/// `pushtop serve`: the embedded Pusher-protocol server, for demos, teammates and tests.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a local Pusher-protocol server (WebSocket + HTTP API on one port).",
        discussion: """
            Serves one app on ws://HOST:PORT/app/KEY and its HTTP API on http://HOST:PORT/apps/ID/...
            POST /pusher/auth signs any private or presence subscription (development only: it authorizes
            everybody; turn it off with --no-auth-endpoint). Stops cleanly on Ctrl-C or SIGTERM.
            """
    )

    @OptionGroup var server: ServerOptions

    @Option(name: .customLong("log-level"), help: ArgumentHelp("Log level on stderr: trace, debug, info, notice, warning, error, critical.", valueName: "LEVEL"))
    var logLevel: String = "info"

    @Option(name: .customLong("log-format"), help: ArgumentHelp("Log lines on stderr: text, or json (one object per line).", valueName: "FORMAT"))
    var logFormat: LogFormat = .text

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let format = logFormat
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            case .json:
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
        let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
        let embedded: EmbeddedServer
        do {
            embedded = try await EmbeddedServer.start(server.configuration())
        } catch {
            FileHandle.standardError.write(Data("pushtop serve: \(error)\n".utf8))
            throw ExitCode.failure
        }
        let config = embedded.configuration
        var lines = ["pushtop serve: listening on \(embedded.webSocketURL) (app id \(config.app.id))"]
        lines.append("  HTTP API: \(embedded.httpURL)/apps/\(config.app.id)  (try: pushtop trigger --port \(embedded.port) chat message '{\"text\":\"hi\"}')")
        if let auth = embedded.authEndpointURL {
            lines.append("  teammates join: pushtop --host \(shareableHost) --port \(embedded.port) --no-tls --key \(config.app.key) --auth-endpoint \(auth.replacingOccurrences(of: "127.0.0.1", with: shareableHost)) --user-id NAME")
        }
        if config.metricsEndpoint { lines.append("  metrics: \(embedded.httpURL)/metrics") }
        if config.simulate { lines.append("  simulating: presence-lobby, ticker, chat, private-encrypted-vault") }
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))

        let received = await signals.next()
        Logger(label: "pushtop.serve").info("shutting down", metadata: ["signal": "\(received)"])
        await embedded.shutdown()
    }

    /// The host teammates should use: the bind address, or this machine's name when bound to all interfaces.
    private var shareableHost: String {
        switch server.bind {
        case "0.0.0.0", "::": return ProcessInfo.processInfo.hostName
        default: return server.bind
        }
    }
}

/// Waits for one of a set of signals, which are ignored by default handling while it lives.
final class SignalWaiter: @unchecked Sendable {
    // Dispatch sources are thread-safe; they are only created and cancelled here.
    private var sources: [any DispatchSourceSignal] = []
    private let stream: AsyncStream<Int32>

    init(signals: [Int32]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// The next signal received.
    func next() async -> Int32 {
        for await number in stream { return number }
        return 0
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
