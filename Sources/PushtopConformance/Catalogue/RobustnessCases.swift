import NIOWebSocket
import PusherProtocol

/// Hostile input: a server may refuse it any way it likes, but it must keep serving everyone else.
enum RobustnessCases {
    static let source = DocSource(
        page: "Pusher Channels Protocol", section: "WebSocket connection (a server keeps serving others)",
        url: DocSource.protocolPage)

    /// A sentinel subscribed first, then `hostile` on another connection, then the sentinel must still be served.
    static func survives(_ ctx: CaseContext, _ what: String, hostile: (ProbeConnection) async -> Void) async throws
        -> CaseOutcome
    {
        let channel = ctx.channel()
        let sentinel = try await ctx.subscribed(channel)
        let attacker = try await ctx.connect()
        await hostile(attacker)
        await ctx.settle(0.3)
        let how: String
        if attacker.socket.hasEnded {
            how = "closed the sender (\(await attacker.socket.end(within: 0)))"
        } else {
            how = await ctx.roundTrip(attacker) ? "kept the sender" : "stopped answering the sender"
        }
        do {
            _ = try await ctx.stillServing(sentinel, channel: channel)
        } catch let failure as CaseFailure {
            throw CaseFailure(
                expected: "the server to keep serving other connections after \(what)",
                got: failure.got, evidence: ctx.evidence())
        }
        return .pass("\(how); others still served")
    }

    static func robustness(
        _ id: String, _ title: String, _ what: String, messages: Int = ConformanceCase.defaultMessages,
        hostile: @escaping @Sendable (ProbeConnection) async -> Void
    ) -> ConformanceCase {
        ConformanceCase(id, .must, source, title, messages: messages) { ctx in
            try await survives(ctx, what, hostile: hostile)
        }
    }

    static let all: [ConformanceCase] = [
        robustness("robustness.binary-frame", "A binary frame does not stop the server.", "a binary frame") { c in
            c.socket.sendFrame(opcode: .binary, bytes: [0, 1, 2, 3, 255])
        },
        robustness("robustness.malformed-json", "A text frame that is not JSON does not stop the server.", "{not json")
        { c in
            c.socket.send("{\"event\": pusher:subscribe, oops")
        },
        robustness(
            "robustness.wrong-types", "Frames with fields of the wrong types do not stop the server.",
            "wrongly typed fields"
        ) { c in
            for text in [
                #"{"event":5}"#, #"{"event":"pusher:subscribe","data":5}"#,
                #"{"event":"pusher:subscribe","data":{"channel":[1]}}"#,
                #"[]"#, #"null"#, #"{"event":"client-x","channel":{},"data":"x"}"#,
            ] {
                c.socket.send(text)
            }
        },
        robustness(
            "robustness.invalid-utf8", "A text frame that is not UTF-8 does not stop the server (1007 is fine).",
            "invalid UTF-8"
        ) { c in
            c.socket.sendFrame(opcode: .text, bytes: [0x7b, 0xff, 0xfe, 0x7d])
        },
        robustness(
            "robustness.oversized-message", "A 2 MB message does not stop the server (1009 is fine).",
            "a 2 MB message"
        ) { c in
            c.socket.send(
                #"{"event":"client-big","channel":"x","data":""# + String(repeating: "x", count: 2_000_000) + "\"}")
        },
        robustness(
            "robustness.deep-nesting", "JSON nested 100,000 levels deep does not stop the server.",
            "deeply nested JSON"
        ) { c in
            c.socket.send(#"{"event":"pusher:subscribe","data":"# + String(repeating: "[", count: 100_000) + "}")
        },
        robustness(
            "robustness.ping-flood", "500 pusher:ping at once do not stop the server.", "a ping flood", messages: 800
        ) { c in
            for _ in 0..<500 { c.socket.send(#"{"event":"pusher:ping","data":{}}"#) }
        },
        robustness(
            "robustness.abrupt-drop", "A connection dropped mid-subscription does not stop the server.",
            "an abrupt drop"
        ) { c in
            c.socket.send(
                #"{"event":"pusher:subscribe","data":{"channel":"presence-conform-drop-"# + c.socketID
                    + #"","auth":"x:y","channel_data":"{}"}}"#)
            c.socket.drop()
        },
        ConformanceCase(
            "robustness.fragmented-message", .must, DocSource.rfc6455,
            "A message in three fragments is reassembled (RFC 6455 5.4)."
        ) { ctx in
            let c = try await ctx.connect()
            let channel = ctx.channel()
            let text = Array(
                JSONValue.orderedObject([
                    ("event", "pusher:subscribe"), ("data", .object(["channel": .string(channel)])),
                ]).utf8)
            let third = text.count / 3
            let from = c.socket.count
            c.socket.sendFrame(opcode: .text, bytes: Array(text[..<third]), fin: false)
            c.socket.sendFrame(opcode: .continuation, bytes: Array(text[third..<(2 * third)]), fin: false)
            c.socket.sendFrame(opcode: .continuation, bytes: Array(text[(2 * third)...]), fin: true)
            guard case .succeeded = await ctx.answer(to: c, channel: channel, from: from, wait: ctx.patience) else {
                throw failure(
                    "subscription_succeeded for a fragmented pusher:subscribe",
                    "received: \(c.socket.received(from: from))",
                    ctx)
            }
            return .pass("reassembled")
        },
    ]
}
