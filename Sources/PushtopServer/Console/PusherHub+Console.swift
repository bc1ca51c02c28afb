import PusherProtocol

/// The hub's rows of the debug feed. Each builder is called where the event happens and costs one atomic load
/// when nobody listens (``ConsoleHub/emit(_:)``).
extension PusherHub {
    /// Who closed a connection the server closed with `code`.
    static func closedBy(code: Int, shuttingDown: Bool) -> ConsoleClosedBy {
        switch code {
        case 4201: return .timeout
        case 4100: return .slowConsumer
        case 1001, 4200: return shuttingDown ? .nodeShutdown : .server
        default: return shuttingDown ? .nodeShutdown : .server
        }
    }

    nonisolated func consoleRow(_ type: ConsoleRowType, socketID: String? = nil, channel: String? = nil) -> ConsoleRow {
        var row = ConsoleRow(type: type, timeMs: ConsoleClock.nowMs())
        row.socketID = socketID
        row.channel = channel
        return row
    }

    /// An `error` or `client_error` row: the code sent (if any), the reason, and the rule that refused or failed.
    nonisolated func consoleErrorRow(
        _ type: ConsoleRowType, socketID: String? = nil, channel: String? = nil, code: Int?, reason: String,
        rule: String
    ) -> ConsoleRow {
        var row = consoleRow(type, socketID: socketID, channel: channel)
        row.code = code
        row.reason = reason
        row.rule = rule
        return row
    }

    func consoleConnection(socketID: String, protocolVersion: String?, info: ConsoleConnectionInfo) {
        console.emit {
            var row = consoleRow(.connection, socketID: socketID)
            row.remoteAddress = info.remoteAddress
            row.origin = info.origin
            row.protocolVersion = protocolVersion.flatMap { Int($0) }
            row.clientLibrary = info.clientLibrary
            row.clientVersion = info.clientVersion
            row.tls = info.tls
            return row
        }
    }

    /// A connection refused at once (4001, 4003, 4004, 4006–4008, 4200): an `error` row naming the rule.
    func consoleRefusedConnection(code: Int, reason: String, info: ConsoleConnectionInfo) {
        console.emit {
            var row = consoleErrorRow(.error, code: code, reason: reason, rule: Self.connectionRule(code))
            row.remoteAddress = info.remoteAddress
            row.origin = info.origin
            row.clientLibrary = info.clientLibrary
            row.clientVersion = info.clientVersion
            return row
        }
    }

    static func connectionRule(_ code: Int) -> String {
        switch code {
        case 4001: return "app_key"
        case 4003: return "app_disabled"
        case 4004: return "max_connections"
        case 4006, 4007, 4008: return "protocol_version"
        case 4200: return "server_shutting_down"
        default: return "connection"
        }
    }

    /// A connection about to be forgotten: who closed it, the channels it was in, how long it lived.
    func consoleDisconnection(_ id: ConnectionID, by closedBy: ConsoleClosedBy, code: Int?, reason: String?) {
        guard console.isActive, let record = connections[id] else { return }
        console.emit {
            var row = consoleRow(.disconnection, socketID: record.socketID)
            row.code = code
            row.reason = reason
            row.closedBy = closedBy
            row.channels = record.channels.sorted()
            row.lifetimeMs = Self.milliseconds(ContinuousClock.now - record.openedAt)
            return row
        }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// A refusal sent to a connection (`pusher:error`, `pusher:subscription_error`).
    func consoleError(
        _ id: ConnectionID, code: Int?, reason: String, rule: String, channel: String? = nil, status: Int? = nil
    ) {
        console.emit {
            var row = consoleErrorRow(
                .error, socketID: connections[id]?.socketID, channel: channel, code: code, reason: reason, rule: rule)
            row.status = status
            return row
        }
    }

    /// A refused client event (`client_error`): the rule it broke.
    func consoleClientError(
        _ id: ConnectionID, code: Int?, reason: String, rule: String, channel: String?, event: String
    ) {
        console.emit {
            var row = consoleErrorRow(
                .clientError, socketID: connections[id]?.socketID, channel: channel, code: code, reason: reason,
                rule: rule)
            row.event = event
            row.userID = channel.flatMap { connections[id]?.presenceUserIDs[$0] }
            return row
        }
    }

    func consoleClientEvent(socketID: String, channel: String, event: String, data: String, userID: String?) {
        console.emit {
            var row = consoleRow(.clientEvent, socketID: socketID, channel: channel)
            row.event = event
            row.userID = userID
            ConsoleRowData.fill(&row, data)
            return row
        }
    }

    func consoleSubscription(_ type: ConsoleRowType, socketID: String?, channel: String, userID: String?) {
        console.emit {
            var row = consoleRow(type, socketID: socketID, channel: channel)
            row.userID = userID
            return row
        }
    }

    /// `occupied` / `vacated` (as the webhooks decide them: the cluster's when clustered).
    nonisolated func consoleChannel(_ type: ConsoleRowType, channel: String, count: Int? = nil) {
        console.emit {
            consoleRow(type, channel: channel)
        }
    }

    /// `presence_event`: `member_added` / `member_removed`.
    nonisolated func consolePresence(
        _ event: String, channel: String, userID: String, info: JSONValue? = nil, socketID: String? = nil
    ) {
        console.emit {
            var row = consoleRow(.presenceEvent, socketID: socketID, channel: channel)
            row.event = event
            row.userID = userID
            row.userInfo = info
            return row
        }
    }
}

/// An event's data in a row: cut at ``maxBytes`` (on a character boundary), with its whole size.
package enum ConsoleRowData {
    /// Bytes of data a row carries at most.
    package static let maxBytes = 1000

    package static func fill(_ row: inout ConsoleRow, _ data: String) {
        let size = data.utf8.count
        row.dataBytes = size
        guard size > maxBytes else {
            row.data = data
            row.dataTruncated = false
            return
        }
        let bytes = data.utf8
        var end = bytes.index(bytes.startIndex, offsetBy: maxBytes)
        // Back to the start of a character: never half of a multi-byte sequence.
        while end > bytes.startIndex, bytes[end] & 0xC0 == 0x80 { end = bytes.index(before: end) }
        row.data = String(decoding: bytes[..<end], as: UTF8.self)
        row.dataTruncated = true
    }
}
