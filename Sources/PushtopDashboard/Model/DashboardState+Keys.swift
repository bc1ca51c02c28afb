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
                helpScroll = Scrolling.apply(move, to: min(helpScroll, metrics.last), page: metrics.page,
                    last: metrics.last) ?? helpScroll
            }
            return []
        case .detail(let seq, let scroll):
            if key == .escape || key == .enter || key == .char("q") {
                overlay = .none
            } else if let move = configuration.keyTable.move(for: key) {
                let metrics = DetailOverlayView.scrollMetrics(self, seq: seq)
                overlay = .detail(seq: seq, scroll: Scrolling.apply(move, to: min(scroll, metrics.last),
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
        case .unsubscribe:
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
            log.append(app: selectedApp, time: now, kind: .state, channel: channel.name, event: "unsubscribed", dataText: "unsubscribed")
            return [.unsubscribe(channel.name)]
        case .trigger:
            guard let channel = currentChannel else {
                setStatus("select a private or presence channel first (Channels pane)", isError: true)
                return []
            }
            guard channel.kind.allowsClientEvents else {
                setStatus("client events need a private or presence channel; \(channel.name) is \(channel.kind.rawValue)",
                    isError: true)
                return []
            }
            guard channel.status == .subscribed else {
                setStatus("\(channel.name) is not subscribed yet", isError: true)
                return []
            }
            prompt = Prompt(purpose: .triggerEvent(channel: channel.name), text: "client-")
        case .toggleConnection:
            switch connection.state {
            case .connected, .connecting, .unavailable: return [.disconnect]
            case .initialized, .disconnected, .failed: return [.connect]
            }
        case .toggleSignIn:
            if connection.signedInUser != nil || connection.signInRequested {
                connection.signInRequested = false
                return [.signOut]
            }
            connection.signInRequested = true
            connection.signInError = nil
            log.append(app: selectedApp, time: now, kind: .state, channel: "", event: "signing in", dataText: nil)
            return [.signIn]
        case .filter:
            prompt = Prompt(purpose: .filter, text: log.filter?.query ?? "")
        case .pause:
            if pausedAt == nil {
                pausedAt = log.nextSeq
            } else {
                pausedAt = nil
            }
        case .nextTheme:
            guard !configuration.themeNames.isEmpty else { return [] }
            themeIndex = (themeIndex + 1) % configuration.themeNames.count
            setStatus("theme: \(themeName)")
            return [.applyTheme(themeName)]
        case .saveLog:
            return [.saveLog]
        case .redraw:
            return [.redraw]
        case .help:
            overlay = .help
            helpScroll = 0
        case .close:
            if log.filter != nil {
                log.setFilter(nil)
                setStatus("filter cleared")
            }
        case .quit:
            return [.quit]
        case .wireInspector:
            view = view == .wireInspector ? .panes : .wireInspector
        case .wire(let action):
            switch wire.perform(action, rows: wireRows) {
            case .none:
                if let detail = wire.detail {
                    // Scrolling the open frame: within its lines (End goes to the last page).
                    let last = WireFrameDetailView.scrollMetrics(self, seq: detail.seq).last
                    wire.detail = (detail.seq, action == .bottom ? last : min(detail.scroll, last))
                }
            case .promptFilter: prompt = Prompt(purpose: .wireFilter, text: wire.log.filter?.query ?? "")
            case .leave: view = .panes
            }
        case .authInspector:
            guard let channel = currentChannel else {
                setStatus("no channel selected", isError: true)
                return []
            }
            guard auth.traces[channel.name] != nil else {
                setStatus("\(channel.name): no authorization seen (\(channel.kind.rawValue) channels \(channel.kind.requiresAuthorization ? "authorize when subscribing" : "need none"))",
                    isError: channel.kind.requiresAuthorization)
                return []
            }
            auth.selected = channel.name
            auth.scroll = 0
            view = .authInspector
        case .auth(let action):
            let metrics = AuthInspectorView.scrollMetrics(self)
            if auth.perform(action, channels: appChannelNames, page: metrics.page) == .leave { view = .panes }
            auth.scroll = min(auth.scroll, metrics.last)
        case .channelBrowser:
            if view == .channelBrowser {
                view = .panes
                return []
            }
            view = .channelBrowser
            return apiRequestsDue()
        case .browser(let action):
            switch browser.perform(action, page: ChannelBrowserView.pageRows(self)) {
            case .none: break
            case .leave: view = .panes
            case .promptFilter: prompt = Prompt(purpose: .browserFilter, text: browser.filter)
            case .fetch:
                guard hasAPI else { return [] }
                browser.started(at: now)
                return [.fetchOccupiedChannels]
            case .subscribe(let name):
                if let error = DashboardState.subscribeError(name, existing: appChannelNames) {
                    setStatus(error, isError: true)
                    return []
                }
                selectedChannel = upsertChannel(name, status: .subscribing)
                setStatus("subscribing to \(name)")
                return [.subscribe(name)]
            }
        case .toggleRecording:
            return [.toggleRecording]
        case .replay(let command):
            return [.replay(command)]
        case .replayJumpPrompt:
            prompt = Prompt(purpose: .replayJump)
        case .nextApp:
            selectNextApp()
        }
        return []
    }

    /// Rows of frames the wire inspector shows.
    var wireRows: Int { max(1, size.rows - 4) }

    /// Rows a page moves in the focused pane.
    var pageSize: Int {
        guard let layout else { return 1 }
        return max(1, layout.rect(of: focus).height - 3)
    }

    // MARK: Prompts

    mutating func handlePromptKey(_ key: Key) -> [Effect] {
        guard var p = prompt else { return [] }
        switch key {
        case .escape:
            if p.purpose == .filter { log.setFilter(nil) }
            if p.purpose == .wireFilter { wire.setFilter(nil) }
            if p.purpose == .browserFilter { browser.setFilter("") }
            prompt = nil
            return []
        case .enter:
            return submitPrompt(p)
        case .backspace, .delete:
            if !p.text.isEmpty { p.text.removeLast() }
            prompt = p
            promptChanged()
        case .ctrl("u"):
            p.text = ""
            prompt = p
            promptChanged()
        case .char(let c):
            insertIntoPrompt(c)
        default:
            break
        }
        return []
    }

    mutating func insertIntoPrompt(_ c: Character) {
        guard var p = prompt, p.text.count < 4096 else { return }
        p.text.append(c)
        prompt = p
        promptChanged()
    }

    /// Validates as the user types; the filter applies at once.
    mutating func promptChanged() {
        guard var p = prompt else { return }
        switch p.purpose {
        case .subscribe:
            p.error = p.text.isEmpty ? nil : DashboardState.subscribeError(p.text, existing: appChannelNames)
        case .triggerEvent:
            p.error = p.text.isEmpty ? nil : DashboardState.clientEventNameError(p.text)
        case .triggerData, .replayJump:
            p.error = nil
        case .browserFilter:
            browser.setFilter(p.text)
        case .filter:
            log.setFilter(LogFilter(p.text))
            if logSelected != nil { logSelected = nil }
        case .wireFilter:
            wire.setFilter(LogFilter(p.text))
        }
        prompt = p
    }

    mutating func submitPrompt(_ p: Prompt) -> [Effect] {
        switch p.purpose {
        case .subscribe:
            let name = p.text
            if let error = DashboardState.subscribeError(name, existing: appChannelNames) {
                prompt?.error = error
                return []
            }
            prompt = nil
            selectedChannel = upsertChannel(name, status: .subscribing)
            return [.subscribe(name)]
        case .triggerEvent(let channel):
            if let error = DashboardState.clientEventNameError(p.text) {
                prompt?.error = error
                return []
            }
            prompt = Prompt(purpose: .triggerData(channel: channel, event: p.text), text: "{}")
            return []
        case .triggerData(let channel, let event):
            let data: JSONValue
            do {
                data = try JSONValue(parsing: p.text.isEmpty ? "{}" : p.text)
            } catch {
                prompt?.error = "not valid JSON: \(error)"
                return []
            }
            prompt = nil
            log.append(app: selectedApp, time: now, kind: .info, channel: channel, event: "sent \(event)", dataText: data.jsonString)
            return [.trigger(channel: channel, event: event, data: data)]
        case .filter:
            prompt = nil
            log.setFilter(LogFilter(p.text))
            return []
        case .wireFilter:
            prompt = nil
            wire.setFilter(LogFilter(p.text))
            return []
        case .browserFilter:
            prompt = nil
            browser.setFilter(p.text)
            return []
        case .replayJump:
            guard let target = ReplayStatus.parseTime(p.text, position: replay?.position ?? 0) else {
                prompt?.error = "write m:ss, seconds, or +/-seconds"
                return []
            }
            prompt = nil
            return [.replay(.jump(to: target))]
        }
    }

    /// Why a channel name cannot be subscribed, or `nil`.
    public static func subscribeError(_ name: String, existing: [String]) -> String? {
        do {
            try ChannelName.validate(name)
        } catch {
            return error.description
        }
        if name.hasPrefix("#") { return "channels starting with # are the server's" }
        if existing.contains(name) { return "already subscribed to \(name)" }
        return nil
    }

    /// Why a client event name is refused, or `nil` (Pusher: `client-` prefix, at most 200 characters).
    public static func clientEventNameError(_ name: String) -> String? {
        if !name.hasPrefix("client-") { return "client event names start with 'client-'" }
        if name.count == "client-".count { return "add a name after 'client-'" }
        if name.count > 200 { return "event names are at most 200 characters (this one has \(name.count))" }
        if name.contains(where: { $0 == " " || $0.isNewline }) { return "event names cannot contain spaces" }
        return nil
    }

    // MARK: Mouse

    mutating func handle(_ action: MouseAction) -> [Effect] {
        guard overlay == .none, prompt == nil, view == .panes, let layout else { return [] }
        switch action {
        case .click(let row, let column):
            guard let pane = layout.pane(atRow: row, column: column) else { return [] }
            focus = pane
            let inner = row - layout.rect(of: pane).row - 1
            if pane == .connection, isMultiApp, apps.indices.contains(inner), inner != selectedApp {
                // The connection pane's app rows: a click selects the app.
                selectedApp = inner
                if let i = channels.firstIndex(where: { $0.app == inner }) { selectedChannel = i }
                memberTop = 0
            }
            if pane == .channels, inner >= 1 {
                let rows = ChannelsPaneView.rows(self)
                let top = ChannelsPaneView.top(self, rows: rows, listRows: layout.channels.height - 3)
                let index = top + inner - 1
                if rows.indices.contains(index) {
                    switch rows[index] {
                    case .channel(let i):
                        selectedChannel = i
                        followChannelSelection()
                    case .heading(let app):
                        selectedApp = app
                        if let i = channels.firstIndex(where: { $0.app == app }) { selectedChannel = i }
                    }
                }
            }
        case .wheelUp(let row, let column):
            if let pane = layout.pane(atRow: row, column: column) {
                focus = pane
                move(by: -3)
            }
        case .wheelDown(let row, let column):
            if let pane = layout.pane(atRow: row, column: column) {
                focus = pane
                move(by: 3)
            }
        }
        return []
    }
}
