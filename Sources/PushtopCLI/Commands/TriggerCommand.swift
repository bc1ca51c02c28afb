import ArgumentParser
import Foundation
import PusherChannels
import PusherProtocol
import PushtopDashboard

/// `pushtop trigger`: publishes one event through the HTTP API of a server (pushtop serve, Pusher, soketi…).
struct TriggerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger",
        abstract: "Publish one event through the HTTP API (to pushtop serve, or to Pusher with --cluster).",
        discussion: """
            Prints the server's JSON answer. Exits 1 with the server's message when the request is refused.

            Examples:
              pushtop trigger chat message '{"text":"hello"}'
              pushtop trigger --cluster eu --app-id 123 --key KEY --secret SECRET chat hi
            """
    )

    @OptionGroup var api: APIOptions

    @OptionGroup var envFile: EnvFileOption

    @Option(name: .customLong("socket-id"), help: ArgumentHelp("Do not deliver to this connection (the publisher's own socket).", valueName: "ID"))
    var socketID: String?

    @Option(name: .long, help: ArgumentHelp("Attributes to report per channel: subscription_count, user_count (comma-separated).", valueName: "LIST"))
    var info: String?

    @Argument(help: ArgumentHelp("Channel, or several separated by commas.", valueName: "CHANNEL"))
    var channel: String

    @Argument(help: ArgumentHelp("Event name.", valueName: "EVENT"))
    var event: String

    @Argument(help: ArgumentHelp("Event data (usually JSON); '-' reads it from stdin; empty by default.", valueName: "DATA"))
    var data: String = ""

    func validate() throws {
        let channels = channelList
        guard !channels.isEmpty else { throw ValidationError("CHANNEL must name at least one channel") }
        for name in channels {
            do {
                try ChannelName.validate(name)
            } catch {
                throw ValidationError("invalid channel '\(name)': \(error.description)")
            }
        }
        guard !event.isEmpty else { throw ValidationError("EVENT must not be empty") }
    }

    private var channelList: [String] {
        channel.split(separator: ",").map { String($0) }
    }

    func run() async throws {
        let api = try withEnvFile()
        var configuration = PusherAPIConfiguration(
            appID: api.appID, key: api.key, secret: api.secret, host: api.host, port: api.port, useTLS: api.tls)
        if let cluster = api.cluster {
            configuration = .cluster(cluster, appID: api.appID, key: api.key, secret: api.secret)
        }
        var payload = data
        if payload == "-" {
            payload = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        let client = PusherAPIClient(configuration: configuration)
        do {
            let response = try await client.trigger(
                channels: channelList, event: event, data: payload, socketID: socketID,
                info: info.map { $0.split(separator: ",").map(String.init) } ?? [])
            FileHandle.standardOutput.write(Data((response.body.hasSuffix("\n") ? response.body : response.body + "\n").utf8))
        } catch {
            FileHandle.standardError.write(Data("pushtop trigger: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// The API options with what `--env-file` gives where no flag was given (the options have defaults, so the
    /// command line says which were given).
    private func withEnvFile() throws -> APIOptions {
        guard let file = try envFile.settings() else { return api }
        let flags = CommandLineFlags.given(["--app-id": "app_id", "--key": "key", "--secret": "secret",
            "--host": "host", "--port": "port", "--tls": "tls", "--cluster": "cluster"])
        let f = try file.requiring(["key", "secret", "app_id"].filter { flags[$0] == nil },
            for: "trigger publishes through the HTTP API").profile
        StandardStreams.writeErr("pushtop trigger: \(EnvFileOption.describe(file, flags: flags))\n")
        var api = self.api
        if flags["app_id"] == nil, let v = f.appID { api.appID = v }
        if flags["key"] == nil, let v = f.key { api.key = v }
        if flags["secret"] == nil, let v = f.secret { api.secret = v }
        if flags["host"] == nil, let v = f.host { api.host = v }
        if flags["port"] == nil { api.port = f.port ?? (f.tls == true ? 443 : f.host != nil ? 80 : api.port) }
        if flags["tls"] == nil, let v = f.tls { api.tls = v }
        if flags["cluster"] == nil, f.host == nil, let v = f.cluster { api.cluster = v }
        return api
    }
}
