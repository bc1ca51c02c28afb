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

    @Option(
        name: .customLong("socket-id"),
        help: ArgumentHelp("Do not deliver to this connection (the publisher's own socket).", valueName: "ID"))
    var socketID: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Attributes to report per channel: subscription_count, user_count (comma-separated).", valueName: "LIST"))
    var info: String?

    @Argument(help: ArgumentHelp("Channel, or several separated by commas.", valueName: "CHANNEL"))
    var channel: String

    @Argument(help: ArgumentHelp("Event name.", valueName: "EVENT"))
    var event: String

    @Argument(
        help: ArgumentHelp("Event data (usually JSON); '-' reads it from stdin; empty by default.", valueName: "DATA"))
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
        let api = try self.api.overlaid(
            by: envFile, command: "trigger", purpose: "trigger publishes through the HTTP API")
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
            FileHandle.standardOutput.write(
                Data((response.body.hasSuffix("\n") ? response.body : response.body + "\n").utf8))
        } catch {
            FileHandle.standardError.write(Data("pushtop trigger: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}
