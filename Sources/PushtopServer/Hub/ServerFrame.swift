import NIOCore
import PusherProtocol

/// Builders of the frames the server sends, in Pusher's exact shapes.
///
/// Channel events and `pusher_internal:*` messages carry `data` as a JSON-encoded string, as Pusher does;
/// `pusher:error` carries an object (`{"code":…, "message":…}`), as Pusher does.
enum ServerFrame {
    static func encode(_ message: PusherMessage) -> OutboundFrame {
        .text(ByteBuffer(string: message.jsonString))
    }

    static func event(_ name: String, channel: String?, data: String, userID: String? = nil) -> OutboundFrame {
        encode(PusherMessage(event: name, channel: channel, data: .string(data), userID: userID))
    }

    static func connectionEstablished(socketID: String, activityTimeout: Int) -> OutboundFrame {
        let data: JSONValue = ["socket_id": .string(socketID), "activity_timeout": .number(Double(activityTimeout))]
        return event(PusherEventName.connectionEstablished, channel: nil, data: data.jsonString)
    }

    static func error(code: Int?, message: String) -> OutboundFrame {
        let data: JSONValue = ["code": code.map { .number(Double($0)) } ?? .null, "message": .string(message)]
        return encode(PusherMessage(event: PusherEventName.error, data: data))
    }

    static func subscriptionError(channel: String, type: String, message: String, status: Int) -> OutboundFrame {
        let data: JSONValue = ["type": .string(type), "error": .string(message), "status": .number(Double(status))]
        return event(PusherEventName.subscriptionError, channel: channel, data: data.jsonString)
    }

    static let pong = event(PusherEventName.pong, channel: nil, data: "{}")
    static let ping = event(PusherEventName.ping, channel: nil, data: "{}")

    static func subscriptionSucceeded(channel: String, presence: JSONValue?) -> OutboundFrame {
        let data: String
        if let presence {
            data = JSONValue.object(["presence": presence]).jsonString
        } else {
            data = "{}"
        }
        return event(PusherEventName.subscriptionSucceeded, channel: channel, data: data)
    }

    static func subscriptionCount(channel: String, count: Int) -> OutboundFrame {
        event(PusherEventName.subscriptionCount, channel: channel, data: "{\"subscription_count\":\(count)}")
    }

    static func memberAdded(channel: String, userID: String, info: JSONValue?) -> OutboundFrame {
        var fields: [String: JSONValue] = ["user_id": .string(userID)]
        if let info { fields["user_info"] = info }
        return event(PusherEventName.memberAdded, channel: channel, data: JSONValue.object(fields).jsonString)
    }

    static func memberRemoved(channel: String, userID: String) -> OutboundFrame {
        event(
            PusherEventName.memberRemoved, channel: channel,
            data: JSONValue.object(["user_id": .string(userID)]).jsonString)
    }

    static func cacheMiss(channel: String) -> OutboundFrame {
        event(PusherEventName.cacheMiss, channel: channel, data: "{}")
    }
}
