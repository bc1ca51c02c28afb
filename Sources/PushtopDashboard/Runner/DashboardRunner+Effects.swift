import PusherProtocol
import PushtopKit

extension DashboardRunner {
    /// Performs an effect; those that talk to an app go to the selected app's connection and API. What comes back
    /// (a failure, an API answer) is posted to the app's feed or the inbox, and wakes the loop.
    func perform(_ effect: Effect) {
        let app = backends.indices.contains(state.selectedApp) ? state.selectedApp : 0
        let backend = backends[app]
        let failed = failureReporter(app: app)
        switch effect {
        case .subscribe(let channel):
            Task.detached {
                do {
                    try await backend.subscribe(channel)
                } catch {
                    failed(.subscriptionError(channel: channel, status: nil, message: "\(error)"))
                }
            }
        case .unsubscribe(let channel): Task.detached { await backend.unsubscribe(channel) }
        case .trigger(let channel, let event, let data):
            Task.detached {
                do {
                    try await backend.trigger(channel: channel, event: event, data: data)
                } catch {
                    failed(.error(code: nil, message: "\(event) on \(channel) not sent: \(error)"))
                }
            }
        case .connect: Task.detached { await backend.connect() }
        case .disconnect: Task.detached { await backend.disconnect() }
        case .signIn:
            Task.detached {
                do {
                    try await backend.signIn()
                } catch {
                    failed(.signInFailed(status: nil, message: "\(error)"))
                }
            }
        case .signOut: Task.detached { await backend.signOut() }
        case .saveLog: saveLog()
        case .applyTheme(let name): applyTheme(named: name)
        case .redraw:
            screen.invalidate()
            state.needsDraw = true
        case .toggleRecording: toggleRecording()
        case .fetchOccupiedChannels: fetchOccupiedChannels(app: app)
        case .fetchPresenceUsers(let channel): fetchPresenceUsers(channel, app: app)
        case .replay(let command): replayCommand(command)
        case .nodes(let request): performNodeRequest(request)
        case .consoleFault(let request): injectConsoleFault(request)
        case .quit: break
        }
    }

    /// Shows a failed command in the log of the app it was for, as the client's own errors are.
    private func failureReporter(app: Int) -> @Sendable (ClientEvent) -> Void {
        let inbox = self.inbox
        let feed = feeds[app]
        return { event in
            feed.post([event], time: DashboardClock.now())
            inbox.wake()
        }
    }

    private func applyTheme(named name: String) {
        if let theme = catalog.theme(named: name) {
            currentTheme = theme
            screen.apply(theme)
            screen.invalidate()
        }
    }

    /// Asks the app's HTTP API for its occupied channels (the channel browser); the answer goes to the inbox.
    private func fetchOccupiedChannels(app: Int) {
        guard let api = apis[app] else { return }
        let inbox = self.inbox
        Task.detached {
            let event: UIEvent
            do {
                event = .occupiedChannels(try await api.occupiedChannels(), error: nil, app: app)
            } catch {
                event = .occupiedChannels(nil, error: "\(error)", app: app)
            }
            inbox.update { $0.uiEvents.append(event) }
        }
    }

    /// Asks the app's HTTP API for a presence channel's users (the presence check); the answer goes to the inbox.
    private func fetchPresenceUsers(_ channel: String, app: Int) {
        guard let api = apis[app] else { return }
        let inbox = self.inbox
        Task.detached {
            let event: UIEvent
            do {
                event = .presenceUsers(
                    channel: channel, userIDs: try await api.presenceUserIDs(channel: channel),
                    error: nil, app: app)
            } catch {
                event = .presenceUsers(channel: channel, userIDs: nil, error: "\(error)", app: app)
            }
            inbox.update { $0.uiEvents.append(event) }
        }
    }

    /// Asks the `pushtop proxy` behind the console's feed for a fault; its answer comes back as a notice.
    private func injectConsoleFault(_ request: ConsoleFaultRequest) {
        guard let control = options.consoleControl else {
            state.setStatus("no console feed to ask: K works on a pushtop proxy's feed", isError: true)
            return
        }
        let inbox = self.inbox
        Task.detached {
            let event: UIEvent
            do throws(ConsoleControlError) {
                event = .notice(try await control.inject(request), isError: false)
            } catch {
                event = .notice(error.message, isError: true)
            }
            inbox.update { $0.uiEvents.append(event) }
        }
    }

    private func replayCommand(_ command: ReplayCommand) {
        guard player != nil else {
            state.setStatus("replay controls work in pushtop replay", isError: true)
            return
        }
        if player!.perform(command, into: &state) { player!.restart(into: &state) }
        lastReplayClock = DashboardClock.now()
        state.needsDraw = true
    }

    private func saveLog() {
        let lines = state.logJSONLines()
        let path = options.saveDirectory + "/pushtop-log-" + DashboardClock.fileStamp() + ".jsonl"
        if let error = TextFile.write(lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n"), to: path) {
            state.setStatus("could not save the log to \(path): \(error)", isError: true)
        } else {
            state.setStatus("saved \(Format.counted(lines.count, "entry", plural: "entries")) to \(path)")
        }
    }
}
