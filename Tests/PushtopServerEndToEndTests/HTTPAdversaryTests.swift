import Foundation
import PusherProtocol
import PushtopTestSupport
import Testing

/// The HTTP API as an unfriendly network and careless clients would use it: pipelined mixes, floods of unsigned
/// requests, slowloris, request smuggling, broken chunked framing, oversized heads, keep-alive abuse. Each gets the
/// answer a user should get, and none costs another app (or the owner) anything.
///
/// Every test runs against the real `pushtop serve` binary and against a real `pushtop proxy` in front of a Pusher
/// server that is not pushtop (``AdversaryTarget``), with the same requests (``HTTPAdversary``) and the same
/// expectations: the proxy answers a stranger as `serve` does, and what it refuses never reaches its upstream.
@Suite("HTTP adversary", .serialized)
struct HTTPAdversaryTests {
    static let shop = AdversaryTarget.shop
    static let blog = AdversaryTarget.blog

    static func publish(
        _ app: (id: String, key: String, secret: String), _ name: String, channel: String = "news",
        data: String = "", info: String? = nil, secret: String? = nil
    ) -> String {
        let infoField = info.map { #","info":"\#($0)""# } ?? ""
        return SignedHTTPRequest(
            "POST", "/apps/\(app.id)/events",
            body: #"{"name":"\#(name)","channels":["\#(channel)"],"data":"\#(data)"\#(infoField)}"#, key: app.key,
            secret: secret ?? app.secret
        ).text()
    }

    static func get(
        _ app: (id: String, key: String, secret: String), _ path: String, _ parameters: [String: String] = [:]
    )
        -> String
    {
        SignedHTTPRequest("GET", "/apps/\(app.id)\(path)", key: app.key, secret: app.secret, parameters: parameters)
            .text()
    }

    /// A metric's value in `/metrics` (the first line starting with `prefix`), or -1.
    static func metric(_ prefix: String, port: Int) async throws -> Int {
        let text = try await RawSocket.oneByOne(["GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"], port: port)[0].body
        let line = text.split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Double($0.split(separator: " ").last ?? "").map { Int($0) } } ?? -1
    }

    /// Random mixes of every kind of request, written at once on one connection, get exactly the answers they get
    /// one by one, in the same order.
    @Test(arguments: AdversaryTarget.allCases)
    func pipelinedMixesAreAnsweredAsOneByOne(_ target: AdversaryTarget) async throws {
        try await target.with { running in
            let port = running.port
            let (socket, _) = try await TestSocket.subscribed(
                "ws://127.0.0.1:\(port)/app/blog-key?protocol=7", to: "mix")
            let blog = Self.blog
            let kinds: [String] = [
                Self.get(blog, "/channels"),
                Self.get(blog, "/channels/mix", ["info": "subscription_count"]),
                Self.publish(blog, "a", channel: "mix"),
                Self.publish(blog, "b", channel: "mix", info: "subscription_count"),
                SignedHTTPRequest(
                    "POST", "/apps/2/batch_events",
                    body: #"{"batch":[{"channel":"mix","name":"c"},{"channel":"mix","name":"d"}]}"#, key: blog.key,
                    secret: blog.secret
                ).text(),
                Self.publish(blog, "x", channel: "mix", secret: "guess"),
                Self.get(blog, "/channels/presence-x/users"),
                Self.get(blog, "/channels/not-presence/users"),
                "GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /nothing-here HTTP/1.1\r\nHost: x\r\n\r\n",
                Self.get((id: "77", key: "k", secret: "s"), "/channels"),
            ]
            var random = SplitMix(seed: 2026_11_27)
            for round in 0..<20 {
                let mix = (0..<10).map { _ in kinds[Int(random.next() % UInt64(kinds.count))] }
                let alone = try await RawSocket.oneByOne(mix, port: port)
                let pipelined = try await RawSocket.pipeline(mix, port: port)
                #expect(pipelined.map(\.status) == alone.map(\.status), "round \(round)")
                for (index, (a, b)) in zip(pipelined, alone).enumerated() where !mix[index].hasPrefix("GET /health") {
                    #expect(a.body == b.body, "round \(round), request \(index): \(a) vs \(b)")
                }
            }
            await socket.close()
        }
    }

    /// The owner publishes at half its quota (5 a second against 10) while strangers send 20 times the quota,
    /// unsigned or signed with a guess: every owner request is accepted; every stranger gets 401, never 429. The
    /// proxy passes the API through as it came: its upstream refused each stranger and published the owner's ten.
    @Test(arguments: AdversaryTarget.allCases)
    func anUnsignedFloodCostsTheOwnerNothing(_ target: AdversaryTarget) async throws {
        try await target.with { running in
            let port = running.port
            let flood = Task {
                var statuses: [Int: Int] = [:]
                let unsigned = SignedHTTPRequest(
                    unsigned: "POST", "/apps/1/events", body: #"{"name":"spam","channels":["news"]}"#
                ).text()
                let forged = Self.publish(Self.shop, "spam", secret: "guess")
                for burst in 0..<20 {
                    let answers = try await RawSocket.pipeline(
                        Array(repeating: burst % 2 == 0 ? unsigned : forged, count: 20), port: port)
                    for answer in answers { statuses[answer.status, default: 0] += 1 }
                    try await Task.sleep(for: .milliseconds(100))  // 200 a second: 20 times the quota
                }
                return statuses
            }
            var owner: [Int] = []
            for n in 0..<10 {
                owner.append(try await RawSocket.oneByOne([Self.publish(Self.shop, "own\(n)")], port: port)[0].status)
                try await Task.sleep(for: .milliseconds(200))  // 5 a second: half the quota
            }
            let strangers = try await flood.value
            #expect(owner == Array(repeating: 200, count: 10), "the owner's answers: \(owner)")
            #expect(strangers == [401: 400], "the strangers' answers: \(strangers)")
            if target == .proxy {
                let events = running.passedOn.filter { $0.target.hasPrefix("/apps/1/events") }
                #expect(events.count == 410, "requests passed on: \(events.count)")
                #expect(events.filter { $0.body.contains("\"own") }.count == 10)
                return
            }
            #expect(try await Self.metric(#"pushtop_refused_total{reason="unsigned"}"#, port: port) == 200)
            #expect(try await Self.metric(#"pushtop_refused_total{reason="bad_signature"}"#, port: port) == 200)
            // The app counted its ten events, and nothing of the strangers'.
            #expect(try await Self.metric(#"pushtop_events_published_total{app="1"}"#, port: port) == 10)
        }
    }

    /// Slowloris on one app's endpoint: 40 connections that send half a head and stop. The other app's requests are
    /// answered meanwhile, and the slow connections are closed at the request timeout.
    @Test(arguments: AdversaryTarget.allCases)
    func slowlorisOnOneAppLeavesTheOtherServedAndIsClosed(_ target: AdversaryTarget) async throws {
        // Long enough for the blog's ten requests on a loaded machine. A blog waiting behind the slow connections
        // would be answered only once the first of them was closed: `requestTimeout` after `started` at the earliest.
        let requestTimeout = 6.0
        try await target.with(["--request-timeout", "\(requestTimeout)"]) { running in
            let port = running.port
            let started = ContinuousClock.now
            let slow = try await offloaded {
                try (0..<40).map { _ in
                    let socket = try RawSocket(port: port, timeout: LoadedMachine.bound(requestTimeout))
                    try socket.send(HTTPAdversary.slowHead(path: "/apps/1/events?auth_key=shop-key"))
                    return socket
                }
            }
            let answers = try await RawSocket.oneByOne(
                (0..<10).map { Self.publish(Self.blog, "b\($0)") }, port: port,
                timeout: LoadedMachine.bound(requestTimeout))
            #expect(answers.allSatisfy { $0.status == 200 })
            #expect(
                ContinuousClock.now - started < .seconds(requestTimeout), "the blog waited behind the slow connections")
            let closed = try await offloaded { slow.map { $0.readToEnd().closed } }
            #expect(closed.allSatisfy { $0 }, "every slow connection is closed at the request timeout")
        }
    }

    /// Request smuggling and broken chunked framing, on a fresh connection and after a served request on the same
    /// one: each gets 400 and a closed connection, never silence, and what it hid is never published (nor, behind
    /// the proxy, passed on).
    @Test(arguments: AdversaryTarget.allCases, HTTPAdversary.framings)
    func smugglingAndBrokenFramingAre400AndClosed(_ target: AdversaryTarget, _ framing: HTTPAdversary.Framing)
        async throws
    {
        let name = framing.name
        try await target.with { running in
            let port = running.port
            let (socket, _) = try await TestSocket.subscribed(
                "ws://127.0.0.1:\(port)/app/blog-key?protocol=7", to: "news")
            let attack = HTTPAdversary.smuggling(
                framing, path: "/apps/2/events", hiding: Self.publish(Self.blog, "smuggled"))
            for prefix in ["", Self.publish(Self.blog, "served")] {
                let answers = try await HTTPAdversary.send(prefix + attack, port: port)
                #expect(answers.statuses == (prefix.isEmpty ? [400] : [200, 400]), "\(name): \(answers.text)")
                #expect(answers.closed, "\(name): the connection stayed open")
            }
            _ = try await socket.next("served")
            try await socket.roundTrip()
            #expect(await socket.all("smuggled").isEmpty, "\(name): the hidden request was published")
            #expect(
                !running.passedOn.contains { $0.body.contains("smuggled") || $0.target.contains("smuggled") },
                "\(name): the hidden request was passed on: \(running.passedOn)")
            await socket.close()
        }
    }

    /// Oversized heads and targets, on a fresh connection and after a served publish on the same one: refused with a
    /// 4xx and closed, never silence; an oversized body: 413, and the connection goes on.
    @Test(arguments: AdversaryTarget.allCases)
    func oversizedHeadersTargetsAndBodiesAreRefused(_ target: AdversaryTarget) async throws {
        try await target.with { running in
            let port = running.port
            for oversized in HTTPAdversary.oversized(path: "/apps/1/channels") {
                for prefix in ["", Self.publish(Self.blog, "served")] {
                    let answers = try await HTTPAdversary.send(prefix + oversized.request, port: port)
                    let seen = "\(oversized.name): \(answers.text.prefix(300))"
                    #expect(answers.statuses.count == (prefix.isEmpty ? 1 : 2), "\(seen)")
                    #expect(answers.statuses.last.map(oversized.allowed.contains) == true, "\(seen)")
                    #expect(answers.closed, "\(oversized.name): the connection stayed open")
                }
            }
            #expect(
                !running.passedOn.contains {
                    $0.target.contains("a=1&a=1") || $0.headers.contains { $0.name == "X-Big" }
                })
            let body = #"{"name":"x","channels":["a"],"data":""# + String(repeating: "x", count: 1 << 20) + "\"}"
            let answers = try await RawSocket.oneByOne(
                [
                    SignedHTTPRequest(
                        "POST", "/apps/2/events", body: body, key: Self.blog.key, secret: Self.blog.secret
                    ).text(),
                    Self.publish(Self.blog, "after"),
                ], port: port)
            #expect(answers.map(\.status) == [413, 200])
        }
    }

    /// Keep-alive abuse: a thousand pipelined requests on one connection, publishes with a channel query every
    /// tenth, are all answered in order, and the publishes reach the subscriber in order; a connection left idle is
    /// closed at the idle timeout.
    @Test(arguments: AdversaryTarget.allCases)
    func keepAliveAbuseIsServedInOrderAndIdleConnectionsClose(_ target: AdversaryTarget) async throws {
        try await target.with(["--idle-timeout", "1"]) { running in
            let port = running.port
            let (socket, _) = try await TestSocket.subscribed(
                "ws://127.0.0.1:\(port)/app/blog-key?protocol=7", to: "news")
            let requests = (0..<1000).map { n in
                n % 10 == 9
                    ? Self.get(Self.blog, "/channels/news", ["info": "subscription_count"])
                    : Self.publish(Self.blog, "n", data: "\(n)")
            }
            let answers = try await RawSocket.pipeline(requests, port: port, timeout: 30)
            let expected = (0..<1000).map { $0 % 10 == 9 ? #"{"occupied":true,"subscription_count":1}"# : "{}" }
            #expect(answers.count == 1000 && answers.allSatisfy { $0.status == 200 })
            #expect(
                answers.map(\.body) == expected,
                "the first out of order: \(zip(answers.map(\.body), expected).enumerated().first { $1.0 != $1.1 }.map { "\($0.offset): \($0.element)" } ?? "none")"
            )
            var received: [String] = []
            for _ in 0..<900 { received.append(try await socket.next("n").dataText ?? "") }
            #expect(received == (0..<1000).filter { $0 % 10 != 9 }.map { "\($0)" })
            let idleClosed = try await offloaded {
                let raw = try RawSocket(port: port, timeout: 5)
                try raw.send(Self.get(Self.blog, "/channels"))
                _ = try raw.readHTTPResponse()
                return raw.readToEnd().closed
            }
            #expect(idleClosed)
            await socket.close()
        }
    }

    /// Clients that vanish with answers owed: 40 connections pipeline 50 requests each (one app's publishes and
    /// queries, strangers' unsigned publishes) and go at once, half with a RST, half with a FIN, without reading.
    /// The answers the listener had decided (and left to be flushed at the end of its turn) meet a closed socket:
    /// the other app is served meanwhile and after, its subscriber gets its events, and the owner is answered again.
    @Test(arguments: AdversaryTarget.allCases)
    func clientsThatVanishWithAnswersOwedCostNoOneAnything(_ target: AdversaryTarget) async throws {
        try await target.with { running in
            let port = running.port
            let (socket, _) = try await TestSocket.subscribed(
                "ws://127.0.0.1:\(port)/app/blog-key?protocol=7", to: "news")
            let owed = (0..<50).map { n in
                switch n % 5 {
                case 0: Self.get(Self.shop, "/channels/news", ["info": "subscription_count"])
                case 1: SignedHTTPRequest(unsigned: "POST", "/apps/\(Self.shop.id)/events", body: "{}").text()
                default: Self.publish(Self.shop, "gone", data: "\(n)")
                }
            }.joined()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for connection in 0..<40 {
                    group.addTask {
                        try await offloaded {
                            let raw = try RawSocket(port: port, timeout: 5)
                            try raw.send(owed)
                            if connection.isMultiple(of: 2) { raw.abort() } else { raw.close() }
                        }
                    }
                }
                group.addTask {
                    let answers = try await RawSocket.oneByOne(
                        (0..<20).map { Self.publish(Self.blog, "kept", data: "\($0)") }, port: port)
                    #expect(answers.map(\.status) == Array(repeating: 200, count: 20))
                }
                try await group.waitForAll()
            }
            var received: [String] = []
            for _ in 0..<20 { received.append(try await socket.next("kept").dataText ?? "") }
            #expect(received == (0..<20).map { "\($0)" })
            let after = try await RawSocket.oneByOne(
                [Self.publish(Self.shop, "after"), Self.publish(Self.blog, "after"), Self.get(Self.blog, "/channels")],
                port: port)
            // The owner's vanished publishes spent its own quota (10 a second): 429 until the next second is its own.
            #expect([200, 429].contains(after[0].status), "\(after[0])")
            #expect(after.dropFirst().map(\.status) == [200, 200])
            await socket.close()
        }
    }

    /// Pipelined requests a slow upstream answers in 0.4 s each, on a proxy with a 1 s idle timeout: the client
    /// waits on the proxy, not idle, so every answer comes before the connection is closed. Was: the idle wait
    /// started at the last request read, and the proxy closed the connection with answers still owed.
    @Test func pipelinedAnswersOwedOutlastTheIdleTimeout() async throws {
        try await AdversaryTarget.proxy.with(["--idle-timeout", "1"]) { running in
            let upstream = try #require(running.upstream)
            upstream.behavior.apiDelay = 0.4
            let requests = (0..<5).map { _ in Self.get(Self.blog, "/channels/news", ["info": "subscription_count"]) }
            let answers = try await RawSocket.pipeline(requests, port: running.port, timeout: 10)
            #expect(answers.map(\.status) == Array(repeating: 200, count: 5))
        }
    }
}
