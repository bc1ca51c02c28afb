import Foundation
import PusherProtocol
import PushtopTestSupport
import Testing

/// `pushtop proxy`'s faults, each with what the client observably does about it, and the `fault` and `recovered`
/// rows that record cause and effect.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ProxyFaultTests {
    @Test func close4200ReconnectsPushtopsOwnClientWhichResubscribesAndTheReportSaysHowFast() async throws {
        let node = try await ServeNode.start()
        let proxy = try await ProxyNode.start(
            inFrontOf: node, extra: ["--fault", "close:4200,after=1s,times=1", "--report"])
        defer { Task { await node.stop() } }
        let feed = try await proxy.feed()
        defer { feed.stop() }
        let watch = try PushtopProcess([
            "watch", "--host", "127.0.0.1", "--port", "\(proxy.port)", "--no-tls", "--key", node.key, "--secret",
            node.secret, "news", "private-room",
        ])
        defer { watch.signal(SIGTERM) }
        // Connected, hit by the 4200, and connected again with a new socket id, in both channels again.
        let first = try await watch.waitForLine("the first connection") {
            $0["type"] as? String == "state" && $0["current"] as? String == "connected"
        }
        let oldID = first["socket_id"] as? String
        let second = try await watch.waitForLine("the reconnection") {
            $0["type"] as? String == "state" && $0["current"] as? String == "connected"
                && $0["socket_id"] as? String != oldID
        }
        let newID = second["socket_id"] as? String
        let fault = try await feed.waitForRow("the fault") { $0.type == .fault }
        #expect(fault.socketID == oldID && fault.code == 4200 && fault.fault == "close:4200,after=1s,times=1")
        let gone = try await feed.waitForRow("the disconnection it caused") {
            $0.type == .disconnection && $0.socketID == oldID
        }
        #expect(gone.code == 4200 && gone.closedBy == .server && gone.fault == fault.fault)
        let recovered = try await feed.waitForRow("the recovery") { $0.type == .recovered }
        #expect(recovered.previousSocketID == oldID && recovered.socketID == newID)
        #expect(recovered.problem == nil && Set(recovered.channels ?? []) == ["news", "private-room"])
        let reconnect = try #require(recovered.reconnectMs)
        let resubscribe = try #require(recovered.resubscribeMs)
        #expect(reconnect >= 0 && resubscribe >= reconnect && resubscribe < 10_000)

        await proxy.stop()
        let report = proxy.process.lines.joined(separator: "\n")
        #expect(report.contains("close:4200,after=1s,times=1: applied 1 time"), "\(report)")
        #expect(report.contains("reconnected 1, resubscribed to every channel 1"), "\(report)")
        #expect(report.contains("resubscribe: p50 \(resubscribe) ms"), "\(report)")
    }

    @Test func close1006DropsTheConnectionWithoutACloseFrame() async throws {
        try await ProxyNode.withProxy(extra: ["--fault", "close:1006"]) { node, proxy in
            let port = proxy.port
            // Our own handshake: the socket id, then the end, can come in the same read as the 101 (NIO's client
            // upgrader would lose that frame).
            let (established, code) = try await offloaded {
                let raw = try RawSocket.webSocket(port: port, path: "/app/\(ServeNode.key)?protocol=7")
                defer { raw.close() }
                return (try raw.readEvent("pusher:connection_established"), raw.readCloseCode())
            }
            #expect(established.contains("socket_id"))
            // No close frame: the socket just ends (a close code would say the server closed it).
            #expect(code == nil)
        }
    }

    @Test func theControlEndpointClosesOneSocketWithTheCodeAskedFor() async throws {
        try await ProxyNode.withProxy { node, proxy in
            let feed = try await proxy.feed(types: "fault")
            defer { feed.stop() }
            let (target, targetID) = try await TestSocket.subscribed(proxy.socketURL(), to: "news")
            let (bystander, _) = try await TestSocket.subscribed(proxy.socketURL(), to: "news")
            // Unsigned: refused, nothing happens.
            let unsigned = try await proxy.raw(
                "POST", "/apps/\(node.appID)/proxy/faults", body: #"{"action":"close","code":4100}"#)
            #expect(unsigned.status == 401)
            let added = try await proxy.signed(
                "POST", "/apps/\(node.appID)/proxy/faults",
                body: #"{"action":"close","code":4100,"socket_id":"\#(targetID)","times":1}"#)
            #expect(added.status == 201, "\(added.body)")
            #expect(try await target.waitForClose() == 4100)
            let row = try await feed.waitForRow("the fault row") { $0.type == .fault }
            #expect(row.socketID == targetID && row.code == 4100)
            // The other socket is untouched.
            try await bystander.roundTrip()
            let list = try await proxy.signed("GET", "/apps/\(node.appID)/proxy/faults")
            #expect(list.body.contains(#""applied":1"#), "\(list.body)")
            await bystander.close()
        }
    }

    @Test func refuseSubscribeAnswersTheNextSubscriptionAsAServerWould() async throws {
        let node = try await ServeNode.start()
        let proxy = try await ProxyNode.start(
            inFrontOf: node, extra: ["--fault", "refuse-subscribe:1,channel=private-*"])
        defer {
            Task {
                await proxy.stop()
                await node.stop()
            }
        }
        let feed = try await proxy.feed()
        defer { feed.stop() }
        let (socket, socketID) = try await TestSocket.subscribed(proxy.socketURL(), to: "news")
        let auth = ChannelAuthSignature.auth(
            key: node.key, secret: node.secret, socketID: socketID, channel: "private-room")
        try await socket.subscribe("private-room", auth: auth)
        let error = try await socket.next(PusherEventName.subscriptionError, channel: "private-room")
        #expect(error.dataJSON?["type"]?.stringValue == "AuthError")
        // Only the next one: the retry goes through.
        try await socket.subscribe("private-room", auth: auth)
        _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "private-room")
        let row = try await feed.waitForRow("the fault") { $0.type == .fault }
        #expect(row.channel == "private-room" && row.socketID == socketID && row.status == 403)
        await socket.close()
    }

    @Test func eventsAreDroppedDuplicatedAndDelayedByChannelAndEvent() async throws {
        let node = try await ServeNode.start()
        let proxy = try await ProxyNode.start(
            inFrontOf: node,
            extra: [
                "--fault", "drop,channel=news,event=lost", "--fault", "duplicate,event=twice", "--fault",
                "delay:3s,event=late",
            ])
        defer {
            Task {
                await proxy.stop()
                await node.stop()
            }
        }
        let (socket, _) = try await TestSocket.subscribed(proxy.socketURL(), to: "news")
        for name in ["lost", "twice", "late", "last"] {
            let status = try await proxy.signed(
                "POST", "/apps/\(node.appID)/events", body: #"{"name":"\#(name)","channel":"news","data":"x"}"#
            ).status
            #expect(status == 200)
        }
        _ = try await socket.next("late", channel: "news")
        let names = await socket.received.filter { $0.channel == "news" && !$0.event.hasPrefix("pusher") }.map(\.event)
        // "lost" never came, "twice" came twice, "late" came after "last", which was published after it. (The delay
        // is 3 s: with 700 ms, a loaded machine once took longer than that to publish "last" and deliver it.)
        #expect(names == ["twice", "twice", "last", "late"], "\(names)")
        await socket.close()
    }

    @Test func aStalledSocketGetsNoPongSoTheClientGivesUp() async throws {
        // The stall is added through the control endpoint once the round trip is done: a stall on a timer (`after=`,
        // tested with `close` above) could begin before a loaded machine finished the round trip.
        try await ProxyNode.withProxy { node, proxy in
            let feed = try await proxy.feed(types: "fault")
            defer { feed.stop() }
            let (socket, socketID) = try await TestSocket.established(proxy.socketURL())
            try await socket.roundTrip()
            let added = try await proxy.signed(
                "POST", "/apps/\(node.appID)/proxy/faults", body: #"{"rule":"stall,socket=\#(socketID),times=1"}"#)
            #expect(added.status == 201, "\(added.body)")
            // The proxy's feed says when the stall began.
            try await feed.waitForRow("the stall") { $0.type == .fault && $0.socketID == socketID }
            try await socket.send(#"{"event":"pusher:ping","data":{}}"#)
            await #expect(throws: TestSocket.Timeout.self) {
                _ = try await socket.next(PusherEventName.pong, timeout: 2)
            }
            await socket.close()
        }
    }

    @Test func anOutageRefusesNewConnectionsForItsSecondsOnly() async throws {
        try await ProxyNode.withProxy { node, proxy in
            // Long enough that the first attempt below comes within it on a loaded machine too.
            let outage = 4
            // Before the rule is added, so that the outage (from when the proxy added it) ends `outage` seconds after
            // this at the earliest, however long the request took.
            let started = Date()
            let added = try await proxy.signed(
                "POST", "/apps/\(node.appID)/proxy/faults", body: #"{"rule":"outage:\#(outage)s"}"#)
            #expect(added.status == 201)
            let port = proxy.port
            @Sendable func upgrades() async throws -> Bool {
                try await offloaded {
                    (try? RawSocket.webSocket(port: port, path: "/app/\(ServeNode.key)?protocol=7")) != nil
                }
            }
            #expect(try await upgrades() == false)
            // After the outage, connections are relayed again.
            try await waitUntil(timeout: LoadedMachine.bound(Double(outage)), "a connection after the outage") {
                try await upgrades()
            }
            #expect(Date().timeIntervalSince(started) >= Double(outage) - 0.5, "refused for the outage's seconds")
        }
    }

    @Test func aClientBreakingTheProtocolCostsOnlyItsOwnConnection() async throws {
        try await ProxyNode.withProxy { node, proxy in
            let feed = try await proxy.feed(types: "error")
            defer { feed.stop() }
            let (bystander, _) = try await TestSocket.subscribed(proxy.socketURL(), to: "news")
            let port = proxy.port
            let code = try await offloaded {
                let raw = try RawSocket.webSocket(port: port, path: "/app/\(ServeNode.key)?protocol=7")
                _ = try raw.readEvent(PusherEventName.connectionEstablished)
                // An unmasked client frame: a protocol error.
                try raw.sendFrame(opcode: 0x1, payload: Array(#"{"event":"pusher:ping"}"#.utf8), masked: false)
                return raw.readCloseCode()
            }
            #expect(code == 1002)
            let row = try await feed.waitForRow("the proxy says what happened") { $0.rule == "client_protocol" }
            #expect(row.code == 1002)
            try await bystander.roundTrip()
            #expect(proxy.process.stderr.contains("broke the WebSocket protocol"))
            await bystander.close()
        }
    }

    @Test func permessageDeflateIsNegotiatedWithTheClientOnItsOwn() async throws {
        try await ProxyNode.withProxy { node, proxy in
            let port = proxy.port
            let (raw, head, first) = try await offloaded {
                let (raw, head) = try RawSocket.webSocketWithHead(
                    port: port, path: "/app/\(ServeNode.key)?protocol=7",
                    headers: ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"])
                let first = try raw.readFrame()
                try raw.sendText(#"{"event":"pusher:subscribe","data":{"channel":"news"}}"#)
                _ = try raw.readEvent("pusher_internal:subscription_succeeded")
                return (raw, head, first)
            }
            defer { raw.close() }
            #expect(head.lowercased().contains("sec-websocket-extensions: permessage-deflate"), "\(head)")
            // pusher:connection_established (117 bytes) is too short to gain from deflate; a 2 KB event is deflated by
            // the proxy toward the client.
            #expect(first.opcode == 0x1 && !first.rsv1)
            let story = String(repeating: "all the news that fits ", count: 90)
            let status = try await proxy.signed(
                "POST", "/apps/\(node.appID)/events", body: #"{"name":"story","channel":"news","data":"\#(story)"}"#
            ).status
            #expect(status == 200)
            // The next frame that is not one of Pusher's own (short, uncompressed) is the story.
            let event = try await offloaded {
                while true {
                    let frame = try raw.readFrame()
                    if frame.rsv1 || !frame.text.contains(#""event":"pusher"#) { return frame }
                }
            }
            #expect(event.opcode == 0x1 && event.rsv1 && event.payload.count < story.utf8.count / 4, "\(event.text)")
        }
    }

    @Test func aDeadUpstreamCostsOnlyTheConnectionsThatNeedItAndTheProxySaysWhy() async throws {
        let node = try await ServeNode.start()
        let dead = try DeadPort()
        // A proxy whose upstream is a port nobody listens on, with the node's app for its own endpoints.
        let process = try PushtopProcess([
            "proxy", "--listen", "127.0.0.1:0", "--upstream", "ws://\(dead.address)", "--key", node.key, "--secret",
            node.secret, "--app-id", node.appID, "--log-level", "notice",
        ])
        defer {
            process.signal(SIGTERM)
            Task { await node.stop() }
        }
        let port = try await process.listeningPort("the proxy")
        let feed = try ServeConsoleFeedReader(
            port: port,
            target: ServeConsoleFeedReader.target(appID: node.appID, key: node.key, secret: node.secret))
        defer { feed.stop() }
        try await waitUntil("the feed's hello") { feed.hello != nil }
        let failure = try await offloaded { () -> String? in
            do {
                _ = try RawSocket.webSocket(port: port, path: "/app/\(ServeNode.key)?protocol=7", timeout: 30)
                return nil
            } catch {
                return "\(error)"
            }
        }
        let why = try #require(failure, "the upgrade went through to a dead upstream")
        // Closed (or refused) by the proxy, as a dead server's connection would be: not left open until the client
        // gives up (its read timing out).
        #expect(!why.contains("timed out"), "\(why)")
        let row = try await feed.waitForRow("the refusal, with why") { $0.type == .error && $0.rule == "upstream" }
        #expect(row.reason?.contains("cannot be reached") == true, "\(row.reason ?? "")")
        try await waitUntil("the log line") { process.stderr.contains("could not open the upstream's end") }
        // The proxy itself goes on: its feed is still there.
        #expect(!feed.ended)
    }
}
