import Foundation
import PusherProtocol
import PushtopTestSupport
import Testing

@testable import PushtopServer

/// Credentials before quotas: who is asking is settled before what it costs, so a stranger never spends an app's
/// `api_requests_per_second`, never appears in its debug feed, and is counted in `pushtop_refused_total` instead.
@Suite("HTTP API admission")
struct HTTPAPIAdmissionTests {
    static let shop = AppCredentials(id: "1", key: "shop-key", secret: "shop-secret")
    static let blog = AppCredentials(id: "2", key: "blog-key", secret: "blog-secret")

    static func limited(_ perSecond: Int) -> PusherLimits {
        var limits = PusherLimits()
        limits.apiRequestsPerSecond = perSecond
        return limits
    }

    static func publish(_ app: AppCredentials, _ name: String, secret: String? = nil) -> SignedHTTPRequest {
        SignedHTTPRequest(
            "POST", "/apps/\(app.id)/events", body: #"{"name":"\#(name)","channels":["news"]}"#, key: app.key,
            secret: secret ?? app.secret)
    }

    /// The value of `pushtop_refused_total{reason="…"}` in `/metrics`.
    static func refused(_ reason: String, port: Int) async throws -> Int {
        let metrics = try await RawSocket.oneByOne(["GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"], port: port)[0].body
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("pushtop_refused_total{reason=\"\(reason)\"}") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
    }

    /// The owner publishes at half its quota while strangers flood at 20 times it: every owner request is
    /// accepted, and every stranger gets 401, never 429.
    @Test func strangersNeverSpendTheOwnersQuota() async throws {
        try await withServer({ $0.apps = [AppSettings(credentials: Self.shop, limits: Self.limited(10))] }) { server in
            let listener = server.hub.console.addListener(types: [.apiError, .apiMessage])
            defer { server.hub.console.remove(listener) }
            let flood = Task {
                var statuses: [Int: Int] = [:]
                let unsigned = SignedHTTPRequest(
                    unsigned: "POST", "/apps/1/events", body: #"{"name":"spam","channels":["news"]}"#
                ).text()
                let forged = Self.publish(Self.shop, "spam", secret: "guess").text()
                // 200 requests a second for two seconds, in bursts of 20.
                for burst in 0..<20 {
                    let answers = try await RawSocket.pipeline(
                        Array(repeating: burst % 2 == 0 ? unsigned : forged, count: 20), port: server.port)
                    for answer in answers { statuses[answer.status, default: 0] += 1 }
                    try await Task.sleep(for: .milliseconds(100))
                }
                return statuses
            }
            var owner: [Int] = []
            for n in 0..<10 {
                owner.append(
                    try await RawSocket.oneByOne([Self.publish(Self.shop, "own\(n)").text()], port: server.port)[0]
                        .status)
                try await Task.sleep(for: .milliseconds(200))  // 5 a second: half the quota
            }
            let strangers = try await flood.value
            #expect(owner == Array(repeating: 200, count: 10), "the owner's answers: \(owner)")
            #expect(strangers == [401: 400], "the strangers' answers: \(strangers)")
            #expect(try await Self.refused("unsigned", port: server.port) == 200)
            #expect(try await Self.refused("bad_signature", port: server.port) == 200)
            // The app's feed has the owner's ten messages and nothing of the strangers'.
            var rows: [ConsoleRow] = []
            try await waitUntil("the owner's ten api_message rows") {
                listener.wake()
                if case .rows(let more) = await listener.next() { rows += more }
                return rows.filter { $0.type == .apiMessage }.count == 10
            }
            #expect(!rows.contains { $0.type == .apiError }, "\(rows.filter { $0.type == .apiError })")
            #expect(!rows.contains { $0.event == "spam" })
        }
    }

    /// Over its quota, the owner does get 429: the quota still holds for the app's own requests.
    @Test func theOwnerOverItsQuotaGets429() async throws {
        try await withServer({ $0.apps = [AppSettings(credentials: Self.shop, limits: Self.limited(5))] }) { server in
            let answers = try await RawSocket.pipeline(
                (0..<20).map { Self.publish(Self.shop, "e\($0)").text() }, port: server.port)
            let statuses = Set(answers.map(\.status))
            #expect(statuses == [200, 429], "\(answers.map(\.status))")
            #expect(answers.prefix(5).allSatisfy { $0.status == 200 })
        }
    }

    /// An unknown app id and another app's key belong to no app: 404 and 401, counted for the server, in neither
    /// app's feed.
    @Test func unknownAppsAndOtherAppsKeysBelongToNoApp() async throws {
        try await withServer({
            $0.apps = [AppSettings(credentials: Self.shop), AppSettings(credentials: Self.blog)]
        }) { server in
            let shop = try #require(server.hub(forAppID: "1"))
            let blog = try #require(server.hub(forAppID: "2"))
            let shopRows = shop.console.addListener()
            let blogRows = blog.console.addListener()
            defer {
                shop.console.remove(shopRows)
                blog.console.remove(blogRows)
            }
            let wrongApp = AppCredentials(id: "1", key: Self.blog.key, secret: Self.blog.secret)
            let answers = try await RawSocket.oneByOne(
                [
                    Self.publish(AppCredentials(id: "99", key: "k", secret: "s"), "x").text(),
                    Self.publish(wrongApp, "x").text(),
                    SignedHTTPRequest(
                        "POST", "/users/u1/terminate_connections", key: "nobody", secret: "s"
                    ).text(),
                    Self.publish(Self.shop, "owner").text(),
                ], port: server.port)
            #expect(answers.map(\.status) == [404, 401, 401, 200])
            #expect(try await Self.refused("unknown_app", port: server.port) == 1)
            #expect(try await Self.refused("wrong_key", port: server.port) == 2)
            var rows: [ConsoleRow] = []
            try await waitUntil("the owner's message") {
                shopRows.wake()
                if case .rows(let more) = await shopRows.next() { rows += more }
                return rows.contains { $0.event == "owner" }
            }
            #expect(rows.filter { $0.type == .apiError }.isEmpty)
            blogRows.wake()
            if case .rows(let more) = await blogRows.next() {
                #expect(more.filter { $0.type == .apiError || $0.type == .apiMessage }.isEmpty)
            }
        }
    }

    /// A request signed with the secret but stale is the owner's mistake: it is in the app's feed (with the skew).
    @Test func aSignedButStaleRequestIsTheOwnersRow() async throws {
        try await withServer({ $0.apps = [AppSettings(credentials: Self.shop)] }) { server in
            let listener = server.hub.console.addListener(types: [.apiError])
            defer { server.hub.console.remove(listener) }
            let stale = SignedHTTPRequest(
                "POST", "/apps/1/events", body: #"{"name":"x","channels":["a"]}"#, key: Self.shop.key,
                secret: Self.shop.secret, timestamp: Int(Date().timeIntervalSince1970) - 1000)
            let answers = try await RawSocket.oneByOne([stale.text()], port: server.port)
            #expect(answers[0].status == 401 && answers[0].body.contains("Timestamp expired"))
            var rows: [ConsoleRow] = []
            try await waitUntil("the stale request's row") {
                listener.wake()
                if case .rows(let more) = await listener.next() { rows += more }
                return !rows.isEmpty
            }
            #expect(rows[0].rule == "timestamp" && rows[0].status == 401)
        }
    }
}
