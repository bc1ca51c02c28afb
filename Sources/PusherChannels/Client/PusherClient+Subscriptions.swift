import Foundation
import Logging
import PusherProtocol

extension PusherClient {
    // MARK: - Channels

    /// Subscribes to a channel now, or as soon as connected; after a reconnect it is subscribed again.
    /// - Throws: ``ClientError/invalidChannelName(_:)`` when the name breaks Pusher's rules.
    public func subscribe(_ channel: String) throws(ClientError) {
        try add(ChannelSubscription(name: channel))
    }

    /// Subscribes to a private, presence or encrypted channel with an authorization the caller already holds
    /// (PusherSwift's `subscribe(_:auth:)`), instead of asking ``PusherClientOptions/authorizer``.
    ///
    /// `authorization` is what an auth endpoint answers (`auth`, and `channel_data` for presence, `shared_secret`
    /// for encrypted channels), signed for one socket id: make it for the connection's ``socketID`` (subscribe
    /// once ``state`` is `connected`). It is used once, for the first subscription; after a reconnect (a new
    /// socket id) the client asks the authorizer, and reports a subscription error when there is none. On a
    /// public channel it is ignored.
    /// - Throws: ``ClientError/invalidChannelName(_:)`` when the name breaks Pusher's rules. Nothing happens for
    ///   a channel the client already subscribes to.
    public func subscribe(_ channel: String, authorization: ChannelAuthorization) throws(ClientError) {
        var record = ChannelSubscription(name: channel)
        record.suppliedAuthorization = authorization
        try add(record)
    }

    private func add(_ record: ChannelSubscription) throws(ClientError) {
        let channel = record.name
        do {
            try ChannelName.validate(channel)
        } catch {
            throw .invalidChannelName(error)
        }
        guard channels[channel] == nil else { return }
        channels[channel] = record
        channelOrder.append(channel)
        if machine.state == .connected, !user.holdsChannels { startSubscription(channel) }
        flush()
    }

    /// Leaves a channel (nothing happens for a channel not subscribed).
    public func unsubscribe(_ channel: String) {
        remove(channel)
        flush()
    }

    /// Leaves every channel (PusherSwift's `unsubscribeAll()`): a `pusher:unsubscribe` for each one the server
    /// has, and `.unsubscribed` for each, in the order they were subscribed, in one batch. Bindings stay.
    public func unsubscribeAll() {
        for channel in channelOrder { remove(channel) }
        flush()
    }

    private func remove(_ channel: String) {
        guard let record = channels.removeValue(forKey: channel) else { return }
        channelOrder.removeAll { $0 == channel }
        if machine.state == .connected, record.subscribedOnAttempt == machine.attempt {
            send(PusherMessage(event: PusherEventName.unsubscribe, data: ["channel": .string(channel)]))
        }
        emit(.unsubscribed(channel: channel))
    }

    /// Sends a client event (`client-…`) on a subscribed private or presence channel.
    /// - Throws: ``ClientError`` when the event or channel does not allow it; nothing is sent then.
    public func trigger(channel: String, event: String, data: JSONValue) throws(ClientError) {
        guard event.hasPrefix(PusherEventName.clientPrefix) else { throw .notClientEvent(event: event) }
        let kind = ChannelKind(channelName: channel)
        guard kind.allowsClientEvents else { throw .clientEventsNotAllowed(channel: channel, kind: kind) }
        guard let record = channels[channel], record.state == .subscribed else {
            throw .notSubscribed(channel: channel)
        }
        guard machine.state == .connected else { throw .notConnected }
        send(PusherMessage(event: event, channel: channel, data: data))
    }

    // MARK: - Subscribing

    func startSubscription(_ name: String) {
        guard var record = channels[name], let socketID = machine.socketID else { return }
        guard record.subscribedOnAttempt != machine.attempt else { return }
        guard record.kind.requiresAuthorization else {
            record.subscribedOnAttempt = machine.attempt
            record.state = .subscribing
            channels[name] = record
            send(PusherMessage(event: PusherEventName.subscribe, data: ["channel": .string(name)]))
            emit(.subscribing(channel: name))
            return
        }
        if let supplied = record.suppliedAuthorization {
            // The caller's authorization, once: answered at once, as an authorizer's would be.
            record.suppliedAuthorization = nil
            record.authorizationGeneration += 1
            record.state = .authorizing
            record.subscribedOnAttempt = machine.attempt
            channels[name] = record
            emit(.subscribing(channel: name))
            let trace = AuthorizationTrace(
                channel: name, socketID: socketID, authorizer: "supplied", startedAt: wallClock(), duration: 0,
                auth: supplied.auth, channelData: supplied.channelData, hasSharedSecret: supplied.sharedSecret != nil)
            authorizationFinished(
                name, generation: record.authorizationGeneration, attempt: machine.attempt,
                result: .success(supplied), trace: trace)
            return
        }
        guard let authorizer = options.authorizer else {
            let error = AuthError.noAuthorizer(channel: name)
            record.state = .failed(error.description)
            channels[name] = record
            emit(.subscriptionError(channel: name, status: nil, message: error.description))
            return
        }
        record.authorizationGeneration += 1
        record.state = .authorizing
        record.subscribedOnAttempt = machine.attempt
        channels[name] = record
        emit(.subscribing(channel: name))
        requestAuthorization(
            name, socketID: socketID, authorizer: authorizer,
            generation: record.authorizationGeneration)
    }

    /// Asks the authorizer off the actor; the answer comes back to ``authorizationFinished``, which ignores it
    /// when a newer request or another connection has come since.
    func requestAuthorization(_ name: String, socketID: String, authorizer: any Authorizer, generation: Int) {
        let attempt = machine.attempt
        Task { [weak self] in
            let started = Date().timeIntervalSince1970
            let result: Result<ChannelAuthorization, any Error>
            var details = AuthorizationDetails(
                authorizer: authorizer is SecretAuthorizer
                    ? "local secret"
                    : authorizer is CallbackAuthorizer ? "callback" : String(describing: type(of: authorizer)))
            if let tracing = authorizer as? any TracingAuthorizer {
                (result, details) = await tracing.authorizeTraced(channel: name, socketID: socketID)
            } else {
                do {
                    result = .success(try await authorizer.authorize(channel: name, socketID: socketID))
                } catch {
                    result = .failure(error)
                }
            }
            var trace = AuthorizationTrace(
                channel: name, socketID: socketID, authorizer: details.authorizer, startedAt: started,
                duration: Date().timeIntervalSince1970 - started, status: details.status,
                responseExcerpt: details.responseBody)
            switch result {
            case .success(let value):
                (trace.auth, trace.channelData, trace.hasSharedSecret) = (
                    value.auth, value.channelData, value.sharedSecret != nil
                )
            case .failure(let error):
                trace.status = trace.status ?? (error as? AuthError)?.status
                trace.error = (error as? AuthError)?.description ?? String(describing: error)
            }
            await self?.authorizationFinished(
                name, generation: generation, attempt: attempt, result: result, trace: trace)
        }
    }

    func authorizationFinished(
        _ name: String, generation: Int, attempt: Int,
        result: Result<ChannelAuthorization, any Error>, trace: AuthorizationTrace
    ) {
        defer { flush() }
        guard let record = channels[name], record.authorizationGeneration == generation,
            attempt == machine.attempt, machine.state == .connected
        else { return }
        emit(.authorization(trace))
        switch result {
        case .failure(let error):
            authorizationFailed(name, record: record, error: error)
        case .success(let authorization):
            authorized(name, record: record, authorization: authorization)
        }
    }

    private func authorizationFailed(_ name: String, record: ChannelSubscription, error: any Error) {
        var record = record
        let status = (error as? AuthError)?.status
        let text = (error as? AuthError)?.description ?? String(describing: error)
        logger.warning("authorization failed for \(name): \(text)")
        if record.refreshingKey {
            // The subscription stands; only the held events are lost.
            dropHeldEncrypted(name, reason: "could not fetch a fresh key: \(text)")
            return
        }
        record.state = .failed(text)
        channels[name] = record
        emit(.subscriptionError(channel: name, status: status, message: text))
    }

    /// A fresh key for an encrypted channel delivers the events held for it; any other authorization subscribes.
    private func authorized(_ name: String, record: ChannelSubscription, authorization: ChannelAuthorization) {
        var record = record
        let refreshing = record.refreshingKey
        var sharedKey: [UInt8]?
        if record.kind == .encrypted {
            guard let secret = authorization.sharedSecret, let bytes = Data(base64Encoded: secret),
                bytes.count == ClientSecretBox.keySize
            else {
                let text = "authorization for an encrypted channel has no valid shared_secret"
                if refreshing {
                    dropHeldEncrypted(name, reason: text)
                } else {
                    record.state = .failed(text)
                    channels[name] = record
                    emit(.subscriptionError(channel: name, status: nil, message: text))
                }
                return
            }
            sharedKey = Array(bytes)
        }
        if refreshing {
            record.refreshingKey = false
            record.sharedSecret = sharedKey
            let held = record.heldEncrypted
            record.heldEncrypted = []
            channels[name] = record
            for message in held { decryptAndDeliver(message, channel: name, mayRefresh: false) }
            return
        }
        sendSubscribe(name, record: record, authorization: authorization, sharedKey: sharedKey)
    }

    private func sendSubscribe(
        _ name: String, record: ChannelSubscription, authorization: ChannelAuthorization, sharedKey: [UInt8]?
    ) {
        var record = record
        record.sharedSecret = sharedKey
        record.keyRefreshed = false
        if record.kind == .presence, let channelData = authorization.channelData {
            let me = JSONValue.parseIfJSON(channelData)?["user_id"].flatMap(PresenceRoster.userID(from:))
            record.roster = PresenceRoster(me: me)
        }
        record.state = .subscribing
        channels[name] = record
        var data: [String: JSONValue] = ["channel": .string(name), "auth": .string(authorization.auth)]
        if let channelData = authorization.channelData { data["channel_data"] = .string(channelData) }
        send(PusherMessage(event: PusherEventName.subscribe, data: .object(data)))
    }
}
