import NIOCore
import PusherProtocol
import PushtopServer

/// The connection faults: `close` and `stall`, armed when the connection is established (or when a rule is added
/// later) and fired after the rule's `after=`.
extension Relay {
    /// Schedules `entry` for this connection, if the rule covers it.
    func arm(_ entry: FaultBook.Entry) {
        guard let establishedAt, relays else { return }
        guard entry.rule.covers(socketID: socketID, userID: userID, connectionNumber: number) else { return }
        let due = establishedAt + .milliseconds(Int64(entry.rule.after * 1000))
        let wait = due - ContinuousClock.now
        if wait <= .zero {
            // After the frame at hand (a connection is closed once its client knows its socket id).
            eventLoop.assumeIsolated().execute { [self] in fire(entry) }
        } else {
            let nanoseconds = Int64(Self.milliseconds(wait)) * 1_000_000
            eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(max(0, nanoseconds))) { [self] in fire(entry) }
        }
    }

    /// Applies a due connection fault: now, or (with a `channel=` pattern) once the connection is in such a
    /// channel. A connection that stalled or is closing already is left as it is, and the rule is not counted.
    func fire(_ entry: FaultBook.Entry) {
        guard relays, core.faults.isActive(entry) else { return }
        guard client != nil else {
            // The upstream's frames can come before the client's end is attached: the fault waits for it, so the
            // client first gets what came before (its socket id), as from a real server.
            waitingForClient.append(entry)
            return
        }
        if let pattern = entry.rule.channel, !channels.contains(where: { Glob.matches(pattern, $0) }) {
            waitingForChannel.append(entry)
            return
        }
        guard core.faults.consume(entry) else { return }
        switch entry.rule.action {
        case .close(let code): applyClose(code: code, entry)
        case .stall: applyStall(entry)
        default: break
        }
    }

    /// Closes the client with `code` (1006: the TCP connection is dropped, no close frame), and the upstream's
    /// socket with 1001.
    func applyClose(code: Int, _ entry: FaultBook.Entry) {
        fault = entry.text
        let reason = code == 1006 ? RelayStateMachine.dropReason : Self.closeReason(code)
        var row = faultRow(entry)
        row.code = code
        row.channels = channels.sorted()
        row.reason = code == 1006 ? "dropped the connection (no close frame)" : "closed with \(code)"
        core.post(row)
        core.recoveries.affected(self, fault: entry.text)
        handle(.faultClose(code: code, reason: reason))
    }

    /// What a server says with each code (what Pusher's own close frames carry).
    static func closeReason(_ code: Int) -> String {
        switch code {
        case 4200: return "Generic reconnect immediately"
        case 4100: return "Over capacity"
        case 4009: return "Connection is unauthorized"
        case 4201: return "Pong reply not received"
        case 4202: return "Closed after inactivity"
        case 4000...4099: return "Closed by pushtop proxy (fault): do not reconnect"
        default: return "Closed by pushtop proxy (fault)"
        }
    }

    /// Drops the client's TCP connection now, stalled or not (a judge ending a connection its client kept).
    func dropClient() {
        handle(.dropClient)
    }

    /// Relays nothing more either way: the client hears no pong and gives up on its own.
    func applyStall(_ entry: FaultBook.Entry) {
        fault = entry.text
        handle(.stall)
        var row = faultRow(entry)
        row.channels = channels.sorted()
        row.reason = "stalled: nothing relayed either way"
        core.post(row)
        core.recoveries.affected(self, fault: entry.text)
    }
}
