import Logging
import PusherProtocol

extension PusherClient {
    // MARK: - Signing in

    /// The signed-in user, or `nil` when the connection is not signed in (yet).
    public var signedInUser: SignedInUser? { user.user }

    /// Users of the signed-in user's watchlist that are online now (from `pusher_internal:watchlist_events`).
    public var onlineWatchedUsers: Set<String> { user.online }

    /// Signs the user in now, or as soon as connected, and again after every reconnect (before the channels
    /// subscribe again), as pusher-js's `signin()`. The result is published as `ClientEvent/signedIn(_:)` or
    /// `ClientEvent/signInFailed(status:message:)`; events sent to the user then arrive as
    /// `ClientEvent/userEvent(_:)` and watchlist changes as `ClientEvent/watchlist(_:)`.
    /// - Throws: ``ClientError/noUserAuthenticator`` without ``PusherClientOptions/userAuthenticator``.
    public func signIn() throws(ClientError) {
        guard options.userAuthenticator != nil else { throw .noUserAuthenticator }
        guard !user.requested else { return }
        user.requested = true
        if machine.state == .connected { _ = startSignIn(holdingChannels: false) }
        flush()
    }

    /// Stops being signed in: user events and watchlist changes are no longer received, and the client does not
    /// sign in on later connections. Pusher has no sign-out message, so the server keeps counting this
    /// connection as the user until it ends (reconnect with ``disconnect()`` and ``connect()`` for that).
    public func signOut() {
        guard user.requested else { return }
        user.requested = false
        let wasHolding = user.holdsChannels
        if let channel = user.serverToUserChannel, machine.state == .connected {
            send(PusherMessage(event: PusherEventName.unsubscribe, data: ["channel": .string(channel)]))
        }
        if let previous = user.connectionEnded() { emit(.signedOut(userID: previous.id)) }
        if wasHolding { for name in channelOrder { startSubscription(name) } }
        flush()
    }

    /// Starts signing in on the current connection when asked to; returns whether it did.
    func startSignIn(holdingChannels: Bool) -> Bool {
        guard user.requested, let authenticator = options.userAuthenticator, let socketID = machine.socketID else {
            return false
        }
        user.generation += 1
        let generation = user.generation
        user.phase = .authenticating(generation: generation)
        user.holdsChannels = holdingChannels
        let attempt = machine.attempt
        Task { [weak self] in
            let result: Result<UserAuthentication, any Error>
            do {
                result = .success(try await authenticator.authenticate(socketID: socketID))
            } catch {
                result = .failure(error)
            }
            await self?.authenticationFinished(generation: generation, attempt: attempt, result: result)
        }
        return true
    }

    func authenticationFinished(generation: Int, attempt: Int, result: Result<UserAuthentication, any Error>) {
        defer { flush() }
        guard user.phase == .authenticating(generation: generation), attempt == machine.attempt,
            machine.state == .connected
        else { return }
        switch result {
        case .failure(let error):
            let authError = error as? AuthError
            let text = authError?.description ?? String(describing: error)
            logger.warning("user authentication failed: \(text)")
            signInFinished(failure: (authError?.status, text))
        case .success(let authentication):
            do throws(UserDataError) {
                _ = try SignedInUser(userData: authentication.userData)
            } catch {
                signInFinished(failure: (nil, "user authentication returned bad user_data: \(error.description)"))
                return
            }
            user.phase = .awaitingServer
            send(
                PusherMessage(
                    event: PusherEventName.signin,
                    data: [
                        "auth": .string(authentication.auth), "user_data": .string(authentication.userData),
                    ]))
        }
    }

    func signinSucceeded(_ message: PusherMessage) {
        guard user.requested, user.phase == .awaitingServer || user.phase == .idle else { return }
        let text = message.dataJSON?["user_data"].flatMap { $0.stringValue ?? $0.jsonString } ?? ""
        let signed: SignedInUser
        do throws(UserDataError) {
            signed = try SignedInUser(userData: text)
        } catch {
            signInFinished(failure: (nil, "pusher:signin_success carries bad user_data: \(error.description)"))
            return
        }
        user.phase = .signedIn(signed)
        emit(.signedIn(signed))
        // As pusher-js: events to the user come on their own channel, which needs no authorization.
        send(
            PusherMessage(
                event: PusherEventName.subscribe,
                data: ["channel": .string(PusherEventName.serverToUserPrefix + signed.id)]))
        releaseChannels()
    }

    /// Ends a sign-in that failed; the channels subscribe all the same.
    func signInFinished(failure: (status: Int?, message: String)) {
        user.phase = .idle
        emit(.signInFailed(status: failure.status, message: failure.message))
        releaseChannels()
    }

    func releaseChannels() {
        guard user.holdsChannels else { return }
        user.holdsChannels = false
        for name in channelOrder { startSubscription(name) }
    }
}
