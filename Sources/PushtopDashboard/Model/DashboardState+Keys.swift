import PusherProtocol

extension DashboardState {
    mutating func handle(_ key: Key) -> [Effect] {
        if key == .ctrl("c") { return [.quit] }
        if prompt != nil { return handlePromptKey(key) }
        switch overlay {
        case .help:
            if key == .char("?") || key == .escape || key == .char("q") || key == .enter { overlay = .none }
            if let move = configuration.keyTable.move(for: key) {
                let metrics = HelpOverlayView.scrollMetrics(self)
                helpScroll =
                    Scrolling.apply(
                        move, to: min(helpScroll, metrics.last), page: metrics.page,
                        last: metrics.last) ?? helpScroll
            }
            return []
        case .detail(let seq, let scroll):
            if key == .escape || key == .enter || key == .char("q") {
                overlay = .none
            } else if let move = configuration.keyTable.move(for: key) {
                let metrics = DetailOverlayView.scrollMetrics(self, seq: seq)
                overlay = .detail(
                    seq: seq,
                    scroll: Scrolling.apply(
                        move, to: min(scroll, metrics.last),
                        page: metrics.page, last: metrics.last) ?? scroll)
            }
            return []
        case .none:
            break
        }
        guard let action = configuration.keyTable.action(for: key, focus: focus, view: view, replaying: replay != nil)
        else { return [] }
        return perform(action)
    }

    /// Performs a key table action.
    public mutating func perform(_ action: Action) -> [Effect] {
        switch action {
        case .nextPane: focus = Pane(rawValue: (focus.rawValue + 1) % Pane.allCases.count)!
        case .previousPane: focus = Pane(rawValue: (focus.rawValue + Pane.allCases.count - 1) % Pane.allCases.count)!
        case .focus(let pane): focus = pane
        case .up: move(by: -1)
        case .down: move(by: 1)
        case .pageUp: move(by: -max(1, pageSize - 1))
        case .pageDown: move(by: max(1, pageSize - 1))
        case .top: moveToTop()
        case .bottom: moveToBottom()
        case .open:
            if let seq = logSelected ?? newestVisibleSeq { overlay = .detail(seq: seq, scroll: 0) }
        case .subscribe:
            prompt = Prompt(purpose: .subscribe)
        case .unsubscribe: return unsubscribeSelected()
        case .trigger: promptForClientEvent()
        case .toggleConnection: return toggleConnection()
        case .toggleSignIn: return toggleSignIn()
        case .filter: prompt = Prompt(purpose: .filter, text: log.filter?.query ?? "")
        case .pause: togglePause()
        case .nextTheme: return nextTheme()
        case .saveLog: return [.saveLog]
        case .redraw: return [.redraw]
        case .help: openHelp()
        case .close: clearFilter()
        case .quit: return [.quit]
        case .toggleRecording: return [.toggleRecording]
        case .wireInspector, .wire: return performWireInspector(action)
        case .authInspector, .auth: return performAuthInspector(action)
        case .channelBrowser, .browser: return performChannelBrowser(action)
        case .replay, .replayJumpPrompt: return performReplay(action)
        case .console, .consoleAction: return performConsole(action)
        case .nextApp: selectNextApp()
        }
        return []
    }

    /// `u`: unsubscribes from the selected channel; the selection stays within the app.
    private mutating func unsubscribeSelected() -> [Effect] {
        guard let channel = currentChannel else {
            setStatus("no channel selected", isError: true)
            return []
        }
        let removedAt = selectedChannel
        removeChannel(channel.name)
        if currentChannel == nil {
            // Stay within the app: its channel before the removed one, else its first.
            let before = channels[..<min(removedAt, channels.count)].lastIndex { $0.app == selectedApp }
            if let j = before ?? channels.firstIndex(where: { $0.app == selectedApp }) { selectedChannel = j }
        }
        log.append(
            app: selectedApp, time: now, kind: .state, channel: channel.name, event: "unsubscribed",
            dataText: "unsubscribed")
        return [.unsubscribe(channel.name)]
    }

    /// Opens the client event prompt, or says why the selected channel cannot take client events.
    private mutating func promptForClientEvent() {
        guard let channel = currentChannel else {
            setStatus("select a private or presence channel first (Channels pane)", isError: true)
            return
        }
        guard channel.kind.allowsClientEvents else {
            setStatus(
                "client events need a private or presence channel; \(channel.name) is \(channel.kind.rawValue)",
                isError: true)
            return
        }
        guard channel.status == .subscribed else {
            setStatus("\(channel.name) is not subscribed yet", isError: true)
            return
        }
        prompt = Prompt(purpose: .triggerEvent(channel: channel.name), text: "client-")
    }

    /// Disconnects a connection that is up or on its way up; connects any other.
    private func toggleConnection() -> [Effect] {
        switch self.connection.state {
        case .connected, .connecting, .unavailable: return [.disconnect]
        case .initialized, .disconnected, .failed: return [.connect]
        }
    }

    /// Signs out when signed in or signing in, else signs in.
    private mutating func toggleSignIn() -> [Effect] {
        if self.connection.signedInUser != nil || self.connection.signInRequested {
            self.connection.signInRequested = false
            return [.signOut]
        }
        self.connection.signInRequested = true
        self.connection.signInError = nil
        log.append(app: selectedApp, time: now, kind: .state, channel: "", event: "signing in", dataText: nil)
        return [.signIn]
    }

    private mutating func togglePause() {
        if pausedAt == nil {
            pausedAt = log.nextSeq
        } else {
            pausedAt = nil
        }
    }

    private mutating func nextTheme() -> [Effect] {
        guard !configuration.themeNames.isEmpty else { return [] }
        themeIndex = (themeIndex + 1) % configuration.themeNames.count
        setStatus("theme: \(themeName)")
        return [.applyTheme(themeName)]
    }

    private mutating func openHelp() {
        overlay = .help
        helpScroll = 0
    }

    private mutating func clearFilter() {
        if log.filter != nil {
            log.setFilter(nil)
            setStatus("filter cleared")
        }
    }

    /// Rows a page moves in the focused pane.
    var pageSize: Int {
        guard let layout else { return 1 }
        return max(1, layout.rect(of: focus).height - 3)
    }
}
