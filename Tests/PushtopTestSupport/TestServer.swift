import Foundation
import Logging
import PusherChannels
import PusherProtocol
import PushtopServer

extension EmbeddedServer {
    /// The WebSocket URL with Pusher's query (protocol 7 unless given).
    public func url(protocol version: String? = "7", key: String? = nil) -> String {
        var url = "ws://127.0.0.1:\(port)/app/\(key ?? configuration.app.key)?client=test&version=1.0"
        if let version { url += "&protocol=\(version)" }
        return url
    }

    /// An HTTP API client signed with the server's app.
    public var api: PusherAPIClient {
        PusherAPIClient(
            configuration: PusherAPIConfiguration(
                appID: configuration.app.id, key: configuration.app.key, secret: configuration.app.secret,
                host: "127.0.0.1", port: port))
    }

    /// A channel authorization signed with the server's app.
    public func auth(socketID: String, channel: String, channelData: String? = nil) -> String {
        ChannelAuthSignature.auth(
            key: configuration.app.key, secret: configuration.app.secret, socketID: socketID, channel: channel,
            channelData: channelData)
    }
}
