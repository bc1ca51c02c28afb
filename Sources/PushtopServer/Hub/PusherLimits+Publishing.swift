import PusherProtocol

extension PusherLimits {
    /// Checks an event against Pusher's rules (channels, names, size): a pure function, so the HTTP API
    /// (`HTTPAPICore`) checks on the event loop what the hub would.
    public func check(_ request: PublishRequest) throws(PublishError) {
        if request.channels.isEmpty { throw .noChannels }
        if request.channels.count > maxChannelsPerTrigger {
            throw .tooManyChannels(count: request.channels.count, limit: maxChannelsPerTrigger)
        }
        for name in request.channels {
            if let userID = UserIDs.ofServerToUserChannel(name) {
                // send_to_user: events to one user's connections.
                if let problem = UserIDs.problem(userID) { throw .invalidChannel(name: name, reason: problem) }
                continue
            }
            do {
                try ChannelName.validate(name)
            } catch {
                throw .invalidChannel(name: name, reason: error.description)
            }
        }
        if request.name.isEmpty { throw .missingEventName }
        if request.name.count > maxEventNameLength {
            throw .eventNameTooLong(length: request.name.count, limit: maxEventNameLength)
        }
        if request.name.hasPrefix("pusher:") || request.name.hasPrefix("pusher_internal:") {
            throw .reservedEventName(request.name)
        }
        let bytes = request.data.utf8.count
        if bytes > maxEventDataBytes { throw .dataTooLarge(bytes: bytes, limit: maxEventDataBytes) }
    }
}
