import Foundation
import NIOWebSocket
import PusherProtocol

/// The WebSocket connection: URL and query, `connection_established`, pings, close codes 4000-4099.
enum ConnectionCases {
    static let connection = DocSource.protocol7("WebSocket connection", anchor: "websocket-connection")
    static let established = DocSource.protocol7(
        "pusher:connection_established", anchor: "pusher-connection-established")
    static let pingPong = DocSource.protocol7("Ping and pong messages", anchor: "ping-and-pong-messages")
    static let errorCodes = DocSource.protocol7("Error codes: 4000-4099", anchor: "error-codes")

    /// The refusals Pusher documents for a bad connection URL: what is wrong, the query (and path), the code.
    static let refusals: [(what: String, path: String?, query: String, code: Int)] = [
        ("an unknown key", "/app/conform-no-such-key", "protocol=7&client=pushtop-conform&version=1", 4001),
        ("protocol=abc", nil, "protocol=abc&client=pushtop-conform&version=1", 4006),
        ("protocol=99", nil, "protocol=99&client=pushtop-conform&version=1", 4007),
        ("no protocol=", nil, "client=pushtop-conform&version=1", 4008),
    ]

    /// Opens `url` and expects to be refused with `code` (a `pusher:error`, or a close frame when no `pusher:error`
    /// came). Judges the code only: how the connection ended is `connection.refusals-close-with-their-code`'s.
    static func refusedWith(_ code: Int, path: String? = nil, query: String, _ ctx: CaseContext) async throws
        -> CaseOutcome
    {
        let socket: ProbeSocket
        do {
            socket = try await ctx.open(path: path, query: query)
        } catch {
            throw failure("pusher:error \(code) then a close frame", "\(error)")
        }
        let refusal = await ctx.refusal(of: socket)
        if refusal.established {
            throw failure("pusher:error \(code)", "pusher:connection_established", ctx)
        }
        guard refusal.refused(with: code) else {
            let other = refusal.errorCodes.first.map { " (pusher:error \($0) instead of \(code))" } ?? ""
            throw failure("pusher:error \(code) within \(ctx.patience) s", refusal.received + other, ctx)
        }
        let how = refusal.errors.isEmpty ? "close \(code) without a pusher:error" : "pusher:error \(code)"
        let end: String
        switch refusal.end {
        case .closed(let closeCode, _): end = "then close \(closeCode.map(String.init) ?? "(no code)")"
        case .dropped:
            end = "then the connection dropped without a close frame (see connection.refusals-close-with-their-code)"
        case .open: end = "the connection still open (see connection.refusals-close-with-their-code)"
        }
        return .pass("refused: \(how), \(end)")
    }

    static let all: [ConformanceCase] = [
        ConformanceCase(
            "connection.established", .must, established,
            "A connection to /app/KEY?protocol=7 gets pusher:connection_established."
        ) { ctx in
            let c = try await ctx.connect()
            return .pass("socket_id \(c.socketID)")
        },
        ConformanceCase(
            "connection.established-data-is-a-json-string", .must, established,
            "connection_established's data is a JSON-encoded string, not an object."
        ) { ctx in
            let c = try await ctx.connect()
            guard
                let text = c.socket.frames.first(where: { $0.message?.event == PusherEventName.connectionEstablished })?
                    .text,
                case .object(let fields)? = JSONValue.parseIfJSON(text)
            else { throw failure("a JSON object frame", "none", ctx) }
            guard case .string(let data)? = fields["data"] else {
                throw failure(
                    "data as a string holding JSON", "data is \(fields["data"]?.jsonString ?? "missing")", ctx)
            }
            try check(JSONValue.parseIfJSON(data)?.objectValue != nil, "data to hold a JSON object", data, ctx)
            return .pass("data is a string: \(data)")
        },
        ConformanceCase(
            "connection.socket-id-format", .must, established,
            "The socket_id has the form NUMBER.NUMBER (server SDKs and auth endpoints check it)."
        ) { ctx in
            let c = try await ctx.connect()
            let parts = c.socketID.split(separator: ".", omittingEmptySubsequences: false)
            try check(
                parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) },
                "a socket_id like 123.456", c.socketID, ctx)
            return .pass(c.socketID)
        },
        ConformanceCase(
            "connection.activity-timeout", .must, established,
            "connection_established announces activity_timeout in seconds (Pusher: 120)."
        ) { ctx in
            let c = try await ctx.connect()
            guard let timeout = c.activityTimeout else { throw failure("an activity_timeout number", "none", ctx) }
            try check(timeout > 0 && timeout <= 3600, "activity_timeout between 1 and 3600 seconds", "\(timeout)", ctx)
            return .pass("activity_timeout \(Int(timeout)) s")
        },
        ConformanceCase(
            "connection.distinct-socket-ids", .must, established,
            "Every connection gets its own socket_id."
        ) { ctx in
            var ids: [String] = []
            for _ in 0..<3 { ids.append(try await ctx.connect().socketID) }
            try check(Set(ids).count == 3, "3 different socket ids", ids.joined(separator: ", "), ctx)
            return .pass(ids.joined(separator: ", "))
        },
        ConformanceCase(
            "connection.pusher-js-query-accepted", .must, connection,
            "The query pusher-js sends (protocol=7&client=js&version=8.4.0&flash=false) is accepted."
        ) { ctx in
            let c = try await ctx.connect(query: "protocol=7&client=js&version=8.4.0&flash=false")
            return .pass("socket_id \(c.socketID)")
        },
        ConformanceCase(
            "connection.unknown-key-4001", .must, errorCodes,
            "An unknown app key is refused with 4001 (application does not exist)."
        ) { ctx in
            try await refusedWith(
                4001, path: "/app/conform-no-such-key-\(UInt16.random(in: 0...9999))",
                query: "protocol=7&client=pushtop-conform&version=1", ctx)
        },
        ConformanceCase(
            "connection.refusals-close-with-their-code", .must, errorCodes,
            "A refused connection (4001, 4006, 4007, 4008) is closed with a close frame carrying the code, not dropped."
        ) { ctx in
            var findings: [String] = []
            var seen: [String] = []
            for refusal in refusals {
                let socket: ProbeSocket
                do {
                    socket = try await ctx.open(
                        path: refusal.path.map { "\($0)-\(UInt16.random(in: 0...9999))" }, query: refusal.query)
                } catch {
                    findings.append("\(refusal.what): \(error)")
                    continue
                }
                let answer = await ctx.refusal(of: socket)
                if answer.established { continue }  // the refusal's own case fails it
                switch answer.end {
                case .closed(let code, _) where code == refusal.code:
                    seen.append("\(refusal.what): close \(refusal.code)")
                case .closed(let code, _):
                    findings.append(
                        "\(refusal.what): close \(code.map(String.init) ?? "without a code") instead of \(refusal.code)"
                    )
                case .dropped:
                    findings.append("\(refusal.what): \(answer.received) (no close frame)")
                case .open:
                    findings.append("\(refusal.what): \(answer.received)")
                }
            }
            try check(
                findings.isEmpty,
                "a close frame with the refusal's code (a client told only by a dropped connection "
                    + "sees 1006 and reconnects)", findings.joined(separator: "; "), ctx)
            return .pass(seen.joined(separator: "; "))
        },
        ConformanceCase(
            "connection.bad-version-4006", .must, errorCodes,
            "protocol=abc is refused with 4006 (invalid version string format)."
        ) { ctx in
            try await refusedWith(4006, query: "protocol=abc&client=pushtop-conform&version=1", ctx)
        },
        ConformanceCase(
            "connection.unsupported-protocol-4007", .must, errorCodes,
            "protocol=99 is refused with 4007 (unsupported protocol version)."
        ) { ctx in
            try await refusedWith(4007, query: "protocol=99&client=pushtop-conform&version=1", ctx)
        },
        ConformanceCase(
            "connection.no-protocol-4008", .must, errorCodes,
            "A URL without protocol= is refused with 4008 (no protocol version supplied)."
        ) { ctx in
            try await refusedWith(4008, query: "client=pushtop-conform&version=1", ctx)
        },
        ConformanceCase(
            "connection.other-paths-refused", .must, connection,
            "A WebSocket to a path that is not /app/KEY is refused (an HTTP error, pusher:error 4005 or a close frame)."
        ) { ctx in
            let socket: ProbeSocket
            do {
                socket = try await ctx.open(path: "/conform/not-a-pusher-path/\(ctx.target.key)")
            } catch ProbeError.refused(let status, let reason) where status >= 400 {
                return .pass("upgrade refused: HTTP \(status) \(reason)")
            } catch {
                throw failure("an HTTP error status for the upgrade (Pusher: 404), or pusher:error 4005", "\(error)")
            }
            let refusal = await ctx.refusal(of: socket)
            if refusal.established {
                throw failure(
                    "no connection on an arbitrary path (pusher:error 4005, or HTTP 404)",
                    "pusher:connection_established", ctx)
            }
            if let code = refusal.errorCodes.first {
                return .pass(
                    "refused: pusher:error \(code)\(code == 4005 ? "" : " (Pusher: 4005)"), then \(refusal.end)")
            }
            if case .closed(let code, _) = refusal.end {
                return .pass("refused: close \(code.map(String.init) ?? "without a code") (no pusher:error)")
            }
            throw failure(
                "a refusal: pusher:error 4005 or a close frame (or an HTTP error for the upgrade)", refusal.received,
                ctx)
        },
        ConformanceCase(
            "connection.pusher-ping-answered", .must, pingPong,
            "pusher:ping is answered with pusher:pong."
        ) { ctx in
            let c = try await ctx.connect()
            let from = c.socket.count
            try check(
                await ctx.roundTrip(c), "pusher:pong within \(ctx.patience) s",
                "no pusher:pong; received: \(c.socket.received(from: from))", ctx)
            return .pass("pusher:pong")
        },
        ConformanceCase(
            "connection.websocket-ping-answered", .must, pingPong,
            "A WebSocket ping frame is answered with a pong frame (RFC 6455 5.5.2)."
        ) { ctx in
            let c = try await ctx.connect()
            let from = c.socket.count
            c.socket.sendFrame(opcode: .ping, bytes: Array("conform".utf8))
            let pong = await c.socket.waitFor(ctx.patience, from: from) { $0.kind == .pong }
            try check(pong != nil, "a pong frame", "no pong; received: \(c.socket.received(from: from))", ctx)
            return .pass("pong frame")
        },
        ConformanceCase(
            "connection.server-pings-idle-client", .must, pingPong,
            "A client silent for activity_timeout is pinged (pusher:ping or a WebSocket ping).",
            serverWait: .afterActivityTimeout(plus: 30)
        ) { ctx in
            let c = try await ctx.connect()
            let timeout = c.activityTimeout ?? 120
            let ping = await c.socket.waitFor(timeout + 30) { f in
                f.direction == .received && (f.kind == .ping || f.message?.event == PusherEventName.ping)
            }
            guard let ping else {
                throw failure(
                    "a ping within \(Int(timeout + 30)) s of silence (activity_timeout \(Int(timeout)) s)",
                    c.socket.received(from: 1), ctx)
            }
            return .pass(
                "pinged after \(String(format: "%.1f", ping.at)) s of silence (\(ping.kind == .ping ? "WebSocket ping" : "pusher:ping"))"
            )
        },
        ConformanceCase(
            "connection.unanswered-ping-closed", .should, errorCodes,
            "A client that answers neither pusher:ping nor a WebSocket ping is disconnected (close 4201).",
            serverWait: .afterActivityTimeout(plus: 60)
        ) { ctx in
            let c = try await ctx.connect()
            c.socket.stopAnsweringPings()
            let timeout = c.activityTimeout ?? 120
            let end = await c.socket.end(within: timeout + 60)
            switch end {
            case .closed(let code, _):
                let pinged = c.socket.frames.contains {
                    $0.direction == .received && ($0.kind == .ping || $0.message?.event == PusherEventName.ping)
                }
                return .pass(
                    "close \(code.map(String.init) ?? "without a code")\(code == 4201 ? "" : " (Pusher: 4201)")"
                        + (pinged ? " after an unanswered ping" : " (no ping seen)"))
            case .dropped:
                return .pass("disconnected, without a close frame (Pusher closes with 4201)")
            case .open:
                throw failure(
                    "the connection closed within \(Int(timeout + 60)) s of silence (activity_timeout \(Int(timeout)) s, "
                        + "then about 30 s for the pong)", "\(end); received: \(c.socket.received(from: 1))", ctx)
            }
        },
        ConformanceCase(
            "connection.client-close-answered", .must, DocSource.rfc6455,
            "A client's close frame is answered with a close frame, then the connection ends."
        ) { ctx in
            let c = try await ctx.connect()
            c.socket.close(code: 1000, reason: "bye")
            let from = c.socket.count
            let end = await c.socket.end(within: ctx.patience)
            guard case .closed(let code, _) = end else {
                throw failure("a close frame in reply", "\(end) (received: \(c.socket.received(from: from)))", ctx)
            }
            return .pass("close \(code.map(String.init) ?? "(no code)") in reply")
        },
        ConformanceCase(
            "connection.unknown-event-tolerated", .must, connection,
            "An event the server does not know (pusher:conform-unknown) does not end the connection."
        ) { ctx in
            let c = try await ctx.connect()
            let from = c.socket.count
            c.socket.send(event: "pusher:conform-unknown", data: .object([:]))
            try check(
                await ctx.roundTrip(c), "the connection to keep answering pings",
                "no pong; received: \(c.socket.received(from: from))", ctx)
            return .pass("still answering")
        },
    ]
}
