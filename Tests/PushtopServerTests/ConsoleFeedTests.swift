import Foundation
import PusherProtocol
import PushtopTestSupport
import Testing

@testable import PushtopServer

/// The debug feed in-process: each app's listener sees its own app only, and who closed a connection.
@Suite struct ConsoleFeedTests {
    static let shop = AppCredentials(id: "1", key: "shop-key", secret: "shop-secret")
    static let blog = AppCredentials(id: "2", key: "blog-key", secret: "blog-secret")

    func drain(_ listener: ConsoleListener, until done: @escaping ([ConsoleRow]) -> Bool) async throws -> [ConsoleRow] {
        var rows: [ConsoleRow] = []
        try await waitUntil("rows") {
            listener.wake()
            if case .rows(let more) = await listener.next() { rows += more }
            return done(rows)
        }
        return rows
    }

    @Test func aListenerOfOneAppSeesOnlyThatAppsRows() async throws {
        try await withServer({
            $0.apps = [AppSettings(credentials: Self.shop), AppSettings(credentials: Self.blog)]
        }) { server in
            let shop = try #require(server.hub(forAppID: "1"))
            let blog = try #require(server.hub(forAppID: "2"))
            let listener = shop.console.addListener()
            defer { shop.console.remove(listener) }
            let (b, bID) = try await TestSocket.established(
                "ws://127.0.0.1:\(server.port)/app/blog-key?protocol=7")
            let (a, aID) = try await TestSocket.established(
                "ws://127.0.0.1:\(server.port)/app/shop-key?protocol=7")
            let rows = try await drain(listener) { rows in rows.contains { $0.socketID == aID } }
            #expect(!rows.contains { $0.socketID == bID })
            #expect(rows.allSatisfy { $0.appID == "1" })
            #expect(!blog.console.isActive)
            await a.close()
            await b.close()
        }
    }

    @Test func aServerClosedConnectionSaysWhoClosedItAndWhy() async throws {
        try await withServer({
            $0.activityTimeout = 1
            $0.pongTimeout = 0.5
        }) { server in
            let hub = server.hub
            let listener = hub.console.addListener(types: [.disconnection])
            defer { hub.console.remove(listener) }
            let connection = await hub.open(appKey: server.configuration.app.key, protocolVersion: "7")
            // An in-process client that never answers the ping is closed with 4201 after the pong timeout.
            let rows = try await drain(listener) { rows in rows.contains { $0.socketID == connection.socketID } }
            let row = try #require(rows.first { $0.socketID == connection.socketID })
            #expect(row.code == 4201 && row.closedBy == .timeout)
            #expect(row.lifetimeMs ?? 0 >= 1000)
        }
    }

    @Test func aNodeShuttingDownSaysSoAndEndsTheFeed() async throws {
        try await withServer { server in
            let hub = server.hub
            let listener = hub.console.addListener(types: [.disconnection])
            let (socket, socketID) = try await TestSocket.established(server.webSocketURL + "?protocol=7")
            await hub.shutdown()
            let rows = try await drain(listener) { rows in rows.contains { $0.socketID == socketID } }
            let row = try #require(rows.first { $0.socketID == socketID })
            #expect(row.code == 1001 && row.closedBy == .nodeShutdown)
            #expect(await listener.next() == .finished)
            await socket.close()
        }
    }
}
