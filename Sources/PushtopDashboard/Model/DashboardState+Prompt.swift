import PusherProtocol

/// The prompt at the bottom of the screen: typing, validation as the user types, and what Enter does.
extension DashboardState {
    mutating func handlePromptKey(_ key: Key) -> [Effect] {
        guard var p = prompt else { return [] }
        switch key {
        case .escape:
            if p.purpose == .filter { log.setFilter(nil) }
            if p.purpose == .wireFilter { self.wire.setFilter(nil) }
            if p.purpose == .browserFilter { self.browser.setFilter("") }
            if p.purpose == .consoleFilter { console.setFilter("") }
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
            self.browser.setFilter(p.text)
        case .consoleFilter:
            console.setFilter(p.text)
        case .filter:
            log.setFilter(LogFilter(p.text))
            if logSelected != nil { logSelected = nil }
        case .wireFilter:
            self.wire.setFilter(LogFilter(p.text))
        }
        prompt = p
    }

    /// Subscribes to a channel a view offered (the channel browser's or the console's `s`); a refusal goes to the
    /// status line.
    mutating func subscribeFromView(_ name: String) -> [Effect] {
        if let error = DashboardState.subscribeError(name, existing: appChannelNames) {
            setStatus(error, isError: true)
            return []
        }
        selectedChannel = upsertChannel(name, status: .subscribing)
        setStatus("subscribing to \(name)")
        return [.subscribe(name)]
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
            log.append(
                app: selectedApp, time: now, kind: .info, channel: channel, event: "sent \(event)",
                dataText: data.jsonString)
            return [.trigger(channel: channel, event: event, data: data)]
        case .filter:
            prompt = nil
            log.setFilter(LogFilter(p.text))
            return []
        case .wireFilter:
            prompt = nil
            self.wire.setFilter(LogFilter(p.text))
            return []
        case .browserFilter:
            prompt = nil
            self.browser.setFilter(p.text)
            return []
        case .consoleFilter:
            prompt = nil
            console.setFilter(p.text)
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
}
