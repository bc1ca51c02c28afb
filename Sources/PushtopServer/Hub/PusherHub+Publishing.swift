import PusherProtocol

extension PusherHub {
    /// Checks an event against Pusher's rules without publishing it.
    public func validate(_ request: PublishRequest) throws(PublishError) {
        try limits.check(request)
    }

    /// Publishes events already checked (``PusherLimits/check(_:)``) by the HTTP API (``HTTPAPICore``), in one turn.
    func publishChecked(_ batch: [PublishRequest]) {
        for request in batch { deliver(request) }
        if backplane.isClustered { backplane.send(.publish(batch)) }
    }

    /// Publishes an event to every subscriber of its channels (but the excluded socket), as the HTTP API does.
    ///
    /// The frame is encoded once per channel and shared by all its subscribers.
    /// - Throws: ``PublishError`` when the event breaks a rule; nothing is sent then.
    public func publish(_ request: PublishRequest) throws(PublishError) {
        try validate(request)
        deliver(request)
        if backplane.isClustered { backplane.send(.publish([request])) }
        endTurn()
    }

    /// Publishes several events: all are checked before any is sent (as `POST /batch_events`). They leave in one
    /// turn: each subscriber's frames of the whole batch are written together and flushed once.
    public func publish(batch: [PublishRequest]) throws(PublishError) {
        for request in batch { try validate(request) }
        for request in batch { deliver(request) }
        if backplane.isClustered { backplane.send(.publish(batch)) }
        endTurn()
    }

    /// Delivers an event to this node's subscribers (the excluded socket may be on another node: then it is
    /// not here). `userID` marks client events on presence channels.
    func deliver(_ request: PublishRequest, userID: String? = nil) {
        let excluded = request.excludedSocketID.flatMap { connectionsBySocketID[$0] }
        for channel in request.channels {
            if ChannelNames.isCache(channel) {
                cache[channel] = CachedEvent(name: request.name, data: request.data, at: .now)
            }
            stats.eventsPublished += 1
            guard let subscribers = channels[channel]?.subscribers, !subscribers.isEmpty else { continue }
            let frame = ServerFrame.event(request.name, channel: channel, data: request.data, userID: userID)
            for (id, outbox) in subscribers where id != excluded {
                deliver(frame, via: outbox, to: id)
                stats.deliveries += 1
            }
        }
    }
}
