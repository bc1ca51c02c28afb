import ArgumentParser
import Foundation
import PusherChannels
import PushtopConfig
import PushtopDashboard
import PushtopServer

/// `pushtop demo`: the embedded server with simulated traffic on a free loopback port, and the dashboard on it.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A local server with simulated traffic, and the dashboard connected to it (no account, no network)."
    )

    @OptionGroup var display: DashboardDisplayOptions

    @Option(name: .customLong("user-id"), help: "Your name in presence-lobby (default: $USER).")
    var userID: String?

    /// The channels the demo opens: the simulator's traffic and its presence lobby.
    static let channels = ["ticker", "chat", "private-encrypted-vault", "presence-lobby"]

    func run() async throws {
        try DashboardLauncher.requireTerminal()
        DashboardLauncher.bootstrapLogging(display.logFile)
        let environment = ProcessInfo.processInfo.environment
        let server: EmbeddedServer
        do {
            server = try await EmbeddedServer.start(ServerConfiguration(port: 0, simulate: true))
        } catch {
            throw ValidationError("could not start the demo server: \(error)")
        }
        let me = userID ?? environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "you"
        let info = JSONValue.object(["name": .string(me), "via": "pushtop demo"])
        var clientOptions = PusherClientOptions(
            key: server.configuration.app.key, host: "127.0.0.1", port: server.port,
            connection: ConnectionConfiguration(useTLS: false),
            authorizer: EndpointAuthorizer(
                url: server.authEndpointURL ?? "\(server.httpURL)/pusher/auth",
                parameters: [("user_id", me), ("user_info", info.jsonString)]),
            clientVersion: PushtopVersion.string,
            userAuthenticator: EndpointUserAuthenticator(
                url: server.userAuthEndpointURL ?? "\(server.httpURL)/pusher/user-auth",
                parameters: [("user_id", me), ("user_info", info.jsonString)]))
        clientOptions.transport.readCoalescing = DashboardLauncher.readCoalescing
        let client = PusherClient(options: clientOptions)
        let credentials = KnownCredentials(
            key: server.configuration.app.key, secret: server.configuration.app.secret,
            appID: server.configuration.app.id)
        let status: Int32
        do {
            // The console reads the embedded server's debug feed at once: both sides of the same traffic.
            status = try await DashboardLauncher.run(
                client: client, channels: Self.channels, theme: display.theme ?? environment["PUSHTOP_THEME"],
                record: display.record, credentials: credentials,
                console: .dashboard(
                    nodes: [NodeAddress(host: "127.0.0.1", port: server.port)], options: clientOptions,
                    credentials: credentials, webhookListen: display.webhookAddress))
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
        if status != 0 { throw ExitCode(status) }
    }
}
