import PusherProtocol

/// The auth inspector: for one private/presence/encrypted subscription, what its authorization did: who
/// answered, status, time, the response excerpt, the signed string and, with the secret known, the expected
/// signature next to the received one with the first differing field named.
public enum AuthInspectorView {
    static func lines(_ state: DashboardState, trace: AuthorizationTrace) -> [(String, Role)] {
        var lines = summaryLines(state, trace: trace)
        lines.append(("", .text))
        lines.append(("signed string (socket_id:channel[:channel_data])", .header))
        lines.append((DisplayWidth.sanitized(trace.stringToSign), .eventData))
        lines.append(("", .text))
        lines.append(("signature", .header))
        lines += signatureLines(state, trace: trace)
        lines.append(("", .text))
        lines.append(("response (excerpt, shared_secret removed)", .header))
        lines += responseLines(trace)
        return lines
    }

    /// The attempt: channel, result, who answered, HTTP status, time, socket id and an encrypted channel's key.
    static func summaryLines(_ state: DashboardState, trace: AuthorizationTrace) -> [(String, Role)] {
        var lines: [(String, Role)] = []
        let ok = trace.error == nil
        lines.append(("channel      " + trace.channel, .eventChannel))
        lines.append(
            (
                "result       " + (ok ? "authorized" : "refused: " + (trace.error ?? "")),
                ok ? .stateConnected : .eventError
            ))
        lines.append(("authorizer   " + trace.authorizer, .value))
        lines.append(
            (
                "HTTP status  " + (trace.status.map(String.init) ?? "-"),
                (trace.status ?? 200) < 300 ? .value : .eventError
            ))
        lines.append(
            (
                "time         " + Format.millis(trace.duration) + " at "
                    + Format.clock(trace.startedAt, utcOffset: state.configuration.utcOffset), .value
            ))
        // The trace is the newest attempt, which may be from an earlier connection than the one now open.
        let current = state.connection.socketID
        let which = current == nil ? "" : current == trace.socketID ? " (this connection)" : " (an earlier connection)"
        lines.append(
            ("socket id    " + trace.socketID + which, current == nil || current == trace.socketID ? .value : .dim))
        if ChannelKind(channelName: trace.channel) == .encrypted {
            lines.append(
                (
                    "shared key   " + (trace.hasSharedSecret ? "received (not shown)" : "missing"),
                    trace.hasSharedSecret ? .value : .eventError
                ))
        }
        return lines
    }

    /// The signature received and, with the secret known, the expected one and the verdict.
    static func signatureLines(_ state: DashboardState, trace: AuthorizationTrace) -> [(String, Role)] {
        var lines: [(String, Role)] = [("received     " + (trace.auth ?? "(none)"), .value)]
        if let credentials = state.credentials {
            if let check = SignatureCheck(
                trace: trace, credentials: credentials, otherSocketIDs: state.auth.socketIDs,
                otherChannels: state.appChannelNames)
            {
                lines.append(("expected     " + check.expected, .value))
                lines.append((check.verdict.text, check.verdict == .matches ? .stateConnected : .eventError))
            }
        } else {
            lines.append(
                ("expected     needs the app secret (--secret, PUSHER_APP_SECRET or a profile's secret)", .dim))
        }
        return lines
    }

    /// The authorizer's response body, pretty-printed when it is JSON.
    static func responseLines(_ trace: AuthorizationTrace) -> [(String, Role)] {
        guard let body = trace.responseExcerpt, !body.isEmpty else {
            return [("(no HTTP response: \(trace.authorizer))", .dim)]
        }
        if let pretty = JSONText.prettyLines(body) {
            return pretty.map { ($0, .eventData) }
        }
        return [(DisplayWidth.sanitized(body), .eventData)]
    }

    /// Rows a page moves and the last first line at the state's size (for scrolling keys).
    static func scrollMetrics(_ state: DashboardState) -> (page: Int, last: Int) {
        guard let body = state.layout?.body, let trace = state.auth.selected.flatMap({ state.auth.traces[$0] }) else {
            return (1, 0)
        }
        let height = max(1, body.height - 2)
        return (max(1, height - 1), max(0, lines(state, trace: trace).count - height))
    }

    public static func draw(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        canvas.fill(rect, role: .text)
        let name = state.auth.selected ?? ""
        canvas.box(
            rect, title: "Auth inspector\(state.appTitleSuffix) · \(name)", focused: true,
            badge:
                "←→ channel · ↑↓ PgUp PgDn g G scroll · Esc back · \(Format.counted(state.auth.traces.count, "authorization"))"
        )
        let inner = rect.inset(by: 1)
        guard !inner.isEmpty else { return }
        guard let trace = state.auth.traces[name] else {
            canvas.draw(
                "no authorization seen for this channel", row: inner.row, column: inner.column + 1,
                maxWidth: inner.width - 2, role: .dim)
            return
        }
        let all = lines(state, trace: trace)
        let top = max(0, min(state.auth.scroll, all.count - inner.height))
        for (i, line) in all[top..<min(all.count, top + inner.height)].enumerated() {
            canvas.draw(line.0, row: inner.row + i, column: inner.column + 1, maxWidth: inner.width - 2, role: line.1)
        }
    }
}
