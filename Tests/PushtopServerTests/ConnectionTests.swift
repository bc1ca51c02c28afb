import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Connections")
struct ConnectionTests {
    @Test func connectionEstablishedCarriesSocketIDAndActivityTimeout() async throws {
        try await withServer { server in
            let socket = try await TestSocket.connect(server.url())
            let message = try await socket.next(PusherEventName.connectionEstablished)
            // Pusher sends the data as a JSON-encoded string.
            guard case .string(let text)? = message.data else {
                Issue.record("data is not a string: \(String(describing: message.data))")
                return
            }
            let data = try JSONValue(parsing: text)
            let socketID = try #require(data["socket_id"]?.stringValue)
            #expect(socketID.split(separator: ".").count == 2)
            #expect(socketID.split(separator: ".").allSatisfy { Int($0) != nil })
            #expect(data["activity_timeout"]?.intValue == 120)
            await socket.close()
        }
    }

    // Refusals (unknown key 4001, protocol 4006/4007/4008) are checked frame by frame in HubTests and over
    // the wire by websocket-client and pysher in Tests/interop: WSClient, when a server sends its frames and
    // closes right after the upgrade while the client is busy, can miss them all and never see the close.

    @Test(arguments: ["5", "6", "7"])
    func acceptsProtocolVersions(_ version: String) async throws {
        try await withServer { server in
            let socket = try await TestSocket.connect(server.url(protocol: version))
            _ = try await socket.next(PusherEventName.connectionEstablished)
            await socket.close()
        }
    }

    @Test func pingIsAnsweredWithPong() async throws {
        try await withServer { server in
            let (socket, _) = try await TestSocket.established(server.url())
            try await socket.roundTrip()
            await socket.close()
        }
    }

    @Test func silentConnectionIsPingedThenClosedWith4201() async throws {
        try await withServer({
            $0.activityTimeout = 0.3; $0.pongTimeout = 0.3
        }) { server in
            let (socket, _) = try await TestSocket.established(server.url())
            _ = try await socket.next(PusherEventName.ping, timeout: LoadedMachine.bound(0.3))
            #expect(try await socket.waitForClose(timeout: LoadedMachine.bound(0.3)) == 4201)
            #expect(await server.hub.connectionCount == 0)
        }
    }

    @Test func answeringThePingKeepsTheConnection() async throws {
        // A generous pong timeout: under a loaded CI machine a prompt answer can still take a few hundred ms.
        try await withServer({
            $0.activityTimeout = 0.2; $0.pongTimeout = 2
        }) { server in
            let (socket, _) = try await TestSocket.established(server.url())
            for _ in 0..<3 {
                _ = try await socket.next(PusherEventName.ping, timeout: LoadedMachine.bound(0.2))
                try await socket.send("{\"event\":\"pusher:pong\",\"data\":{}}")
            }
            #expect(await socket.finished == false)
            await socket.close()
        }
    }

    @Test func malformedFramesGetAnErrorAndTheConnectionStays() async throws {
        try await withServer { server in
            let (socket, _) = try await TestSocket.established(server.url())
            try await socket.send("not json")
            try await socket.nextError(containing: "Invalid message")
            try await socket.send("{\"event\":\"pusher:ping\"}")
            _ = try await socket.next(PusherEventName.pong)
            await socket.close()
        }
    }

    @Test func shutdownSendsCloseFramesAndReturns() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let (socket, _) = try await TestSocket.established(server.url())
        let started = ContinuousClock.now
        await server.shutdown()
        // Returned once the sockets closed, not cut off by the HTTP server's 5 s shutdown deadline (which would make
        // it 5 s at least, however fast the machine).
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(try await socket.waitForClose() == 1001)
    }

    @Test func portZeroPicksAFreePortAndTwoServersCoexist() async throws {
        let a = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let b = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        #expect(a.port > 0 && b.port > 0 && a.port != b.port)
        await a.shutdown()
        await b.shutdown()
    }

    @Test func aTakenPortIsATypedError() async throws {
        let a = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        await #expect(throws: EmbeddedServerError.self) {
            _ = try await EmbeddedServer.start(ServerConfiguration(port: a.port))
        }
        await a.shutdown()
    }
}
