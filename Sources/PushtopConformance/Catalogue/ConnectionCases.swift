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

    /// Opens `url` and expects to be refused with `code` (a `pusher:error` or a close frame).
    static func refusedWith(_ code: Int, path: String? = nil, query: String, _ ctx: CaseContext) async throws
        -> CaseOutcome
    {
        let socket: ProbeSocket
        do {
            socket = try await ctx.open(path: path, query: query)
        } catch {
            throw failure("pusher:error \(code) then a close", "\(error)")
        }
        let frame = await socket.waitFor(ctx.patience) { frame in
            if case .ended = frame.kind { return true }
            if case .close = frame.kind { return frame.direction == .received }
            guard let event = frame.message?.event else { return false }
            return event == PusherEventName.error || event == PusherEventName.connectionEstablished
        }
        guard let frame else { throw failure("pusher:error \(code) within \(ctx.patience) s", "nothing", ctx) }
        if frame.message?.event == PusherEventName.connectionEstablished {
            throw failure("pusher:error \(code)", "pusher:connection_established", ctx)
        }
        let closeCode = await socket.waitFor(ctx.patience) { f in
            if case .close = f.kind { return f.direction == .received }
            return false
        }.flatMap(errorCode)
        let codes = [errorCode(frame), closeCode].compactMap { $0 }
        guard codes.contains(code) else {
            throw failure(
                "error code \(code)", SubscribeAnswer.describe(frame) + (closeCode.map { ", close \($0)" } ?? ""), ctx)
        }
        return .pass(
            "refused: \(SubscribeAnswer.describe(frame))\(closeCode.map { ", then close \($0)" } ?? ", no close frame")"
        )
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
            "A WebSocket to a path that is not /app/KEY is not a Pusher connection (4005 or an HTTP error)."
        ) { ctx in
            let socket: ProbeSocket
            do {
                socket = try await ctx.open(path: "/conform/not-a-pusher-path/\(ctx.target.key)")
            } catch ProbeError.refused(let status, let reason) {
                return .pass("upgrade refused: HTTP \(status) \(reason)")
            } catch {
                return .pass("not accepted: \(error)")
            }
            let frame = await socket.waitFor(ctx.patience) { f in
                if case .ended = f.kind { return true }
                if case .close = f.kind { return f.direction == .received }
                return f.message != nil
            }
            if frame?.message?.event == PusherEventName.connectionEstablished {
                throw failure(
                    "no connection on an arbitrary path (pusher:error 4005, or HTTP 404)",
                    "pusher:connection_established", ctx)
            }
            return .pass("refused: \(frame.map(SubscribeAnswer.describe) ?? "no Pusher answer")")
        },
        ConformanceCase(
            "connection.pusher-ping-answered", .must, pingPong,
            "pusher:ping is answered with pusher:pong."
        ) { ctx in
            let c = try await ctx.connect()
            try check(await ctx.roundTrip(c), "pusher:pong within \(ctx.patience) s", "none", ctx)
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
            try check(pong != nil, "a pong frame", "none", ctx)
            return .pass("pong frame")
        },
        ConformanceCase(
            "connection.server-pings-idle-client", .must, pingPong,
            "A client silent for activity_timeout is pinged (pusher:ping or a WebSocket ping)."
        ) { ctx in
            let c = try await ctx.connect()
            let timeout = c.activityTimeout ?? 120
            guard timeout <= 15 else {
                return .skipped(
                    "activity_timeout is \(Int(timeout)) s: waiting for the server's ping takes too long "
                        + "(pushtop serve --activity-timeout 2 runs it)")
            }
            let ping = await c.socket.waitFor(timeout * 2 + 5) { f in
                f.direction == .received && (f.kind == .ping || f.message?.event == PusherEventName.ping)
            }
            try check(ping != nil, "a ping within \(Int(timeout * 2 + 5)) s of silence", "none", ctx)
            return .pass(
                "pinged after \(String(format: "%.1f", ping!.at)) s (\(ping!.kind == .ping ? "WebSocket ping" : "pusher:ping"))"
            )
        },
        ConformanceCase(
            "connection.client-close-answered", .must, DocSource.rfc6455,
            "A client's close frame is answered with a close frame, then the connection ends."
        ) { ctx in
            let c = try await ctx.connect()
            c.socket.close(code: 1000, reason: "bye")
            let reply = await c.socket.waitFor(ctx.patience) { f in
                if case .close = f.kind { return f.direction == .received }
                return false
            }
            try check(reply != nil, "a close frame in reply", c.socket.frames.last?.line() ?? "nothing", ctx)
            return .pass("close \(errorCode(reply!).map(String.init) ?? "(no code)") in reply")
        },
        ConformanceCase(
            "connection.unknown-event-tolerated", .must, connection,
            "An event the server does not know (pusher:conform-unknown) does not end the connection."
        ) { ctx in
            let c = try await ctx.connect()
            c.socket.send(event: "pusher:conform-unknown", data: .object([:]))
            try check(await ctx.roundTrip(c), "the connection to keep answering pings", "no pong", ctx)
            return .pass("still answering")
        },
    ]
}
