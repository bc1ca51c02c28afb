import Testing

@testable import PusherChannels

@Suite struct PusherClientOptionsTests {
    @Test func clusterHostWithTLSByDefault() {
        let options = PusherClientOptions(key: "abc")
        #expect(options.connection.useTLS)
        #expect(
            options.url(useTLS: true)
                == "wss://ws-mt1.pusher.com/app/abc?protocol=7&client=pushtop-swift&version=\(PusherClient.version)&flash=false"
        )
        #expect(
            PusherClientOptions(key: "abc", cluster: "eu").url(useTLS: false).hasPrefix(
                "ws://ws-eu.pusher.com/app/abc?"))
    }

    @Test func customHostAndPort() {
        let options = PusherClientOptions(key: "k", host: "127.0.0.1", port: 6001)
        #expect(options.url(useTLS: false).hasPrefix("ws://127.0.0.1:6001/app/k?protocol=7&"))
        #expect(PusherClientOptions(key: "k", host: "::1", port: 443).url(useTLS: true).hasPrefix("wss://[::1]/app/k?"))
    }

    /// A server behind a reverse proxy at `/ws`: the prefix goes before `/app/KEY`, however it is written.
    @Test func pathPrefixGoesBeforeTheAppPath() {
        for written in ["/ws", "ws", "/ws/", "ws/"] {
            let options = PusherClientOptions(key: "k", host: "example.com", path: written)
            #expect(options.url(useTLS: true).hasPrefix("wss://example.com/ws/app/k?protocol=7&"), "\(written)")
            #expect(options.path == "/ws")
        }
        var nested = PusherClientOptions(key: "k", host: "h", port: 8080)
        nested.path = "/realtime/pusher/"
        #expect(nested.url(useTLS: false).hasPrefix("ws://h:8080/realtime/pusher/app/k?"))
        for none in [nil, "", "/"] as [String?] {
            let options = PusherClientOptions(key: "k", host: "h", path: none)
            #expect(options.url(useTLS: true).hasPrefix("wss://h/app/k?"))
            #expect(options.path == nil)
        }
    }
}
