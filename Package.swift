// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

// The package trait `Tools` (on by default) carries what the executable, the server, the dashboard and `conform` need
// beyond the client library: a package that wants only `PusherChannels` (or `PusherProtocol`) depends on pushtop with
// `traits: []`, and SwiftPM then neither resolves nor fetches those packages (docs/library.md, measured by
// scripts/consumer-footprint). SwiftPM keeps the dependencies of every product of a dependency otherwise.
let tools: TargetDependencyCondition? = .when(traits: ["Tools"])

let package = Package(
    name: "pushtop",
    // The true minimums (scripts/check-platforms checks them): Synchronization's Mutex and Atomic need macOS 15, iOS 18,
    // tvOS 18, watchOS 11, visionOS 2 (NIO's EventLoop.executor, iOS 17, is covered).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "PusherProtocol", targets: ["PusherProtocol"]),
        .library(name: "PusherChannels", targets: ["PusherChannels"]),
        .library(name: "PushtopServer", targets: ["PushtopServer"]),
        .library(name: "PushtopDashboard", targets: ["PushtopDashboard"]),
        .library(name: "PushtopRedis", targets: ["PushtopRedis"]),
        .library(name: "PushtopConformance", targets: ["PushtopConformance"]),
        .library(name: "PushtopProxy", targets: ["PushtopProxy"]),
        // The config file's reader (profiles, `config.toml`), a module of its own so that its fuzzer (Fuzz/) builds
        // without the command line's packages.
        .library(name: "PushtopConfig", targets: ["PushtopConfig"]),
        // The executable's commands as a library: the benchmarks (Benchmarks/) import it.
        .library(name: "PushtopCLI", targets: ["PushtopCLI"]),
        .executable(name: "pushtop", targets: ["pushtop"]),
    ],
    traits: [
        .trait(name: "Tools", description: "The packages of pushtop's executable, server, dashboard and conform."),
        .default(enabledTraits: ["Tools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // `swift package generate-documentation` (scripts/docs): the DocC catalogs in Sources/*/*.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // libsodium, for the tests only: they check the Swift secretbox (PusherProtocol/SecretBox/) against it.
        .systemLibrary(
            name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        .systemLibrary(name: "CNcurses", path: "Sources/CNcurses"),
        .target(
            name: "PusherProtocol",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(
            name: "PusherChannels",
            dependencies: [
                "PusherProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PushtopServer",
            dependencies: [
                "PusherProtocol",
                "PushtopRedis",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: tools),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: tools),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras", condition: tools),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: tools),
                .product(name: "Hummingbird", package: "hummingbird", condition: tools),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: tools),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus", condition: tools),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: strict
        ),
        // A small RESP2 client on SwiftNIO (commands with pipelining, pub/sub, reconnection) for `serve --redis`.
        .target(
            name: "PushtopRedis",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // `pushtop conform`: the catalogue of cases for Pusher-compatible servers and the engine that runs them.
        .target(
            name: "PushtopConformance",
            dependencies: [
                "PusherProtocol",
                "PusherChannels",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: tools),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        // `pushtop proxy`: a relay between an app's clients and its server, with console rows and Pusher-aware faults.
        .target(
            name: "PushtopProxy",
            dependencies: [
                "PusherProtocol",
                "PusherChannels",
                "PushtopServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: tools),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: tools),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras", condition: tools),
                .product(name: "Hummingbird", package: "hummingbird", condition: tools),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: tools),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: strict
        ),
        // `pushtop conform --client`: judges an app's own Pusher client from what it sends through the proxy.
        .target(
            name: "PushtopClientConformance",
            dependencies: [
                "PusherProtocol", "PushtopConformance", "PushtopProxy",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Non-UI code that the dashboard and the headless commands share: the TOML reader, `TextFile`, the canary
        // audit, the roster agreement rule.
        .target(
            name: "PushtopKit",
            dependencies: ["PusherProtocol", .product(name: "TOMLKit", package: "TOMLKit", condition: tools)],
            swiftSettings: strict
        ),
        .target(
            name: "PushtopDashboard",
            dependencies: ["PusherProtocol", "PushtopKit", "CNcurses"],
            swiftSettings: strict
        ),
        // The config file (`config.toml`) and its profiles: what `watch`, the dashboard and the other commands read.
        .target(
            name: "PushtopConfig", dependencies: ["PusherProtocol", "PushtopKit"],
            swiftSettings: strict),
        // The executable's code (commands, wiring); Sources/pushtop only calls `Pushtop.launch()`.
        .target(
            name: "PushtopCLI",
            dependencies: [
                "PusherChannels", "PushtopServer", "PushtopDashboard", "PushtopKit", "PushtopConfig",
                "PushtopConformance", "PushtopProxy", "PushtopClientConformance",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift", condition: tools),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: tools),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "WSClient", package: "swift-websocket", condition: tools),
                // The webhook receiver (`pushtop webhooks`): its HTTP server, forwarding and HMAC check.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "pushtop", dependencies: ["PushtopCLI"], swiftSettings: strict),
        // Runs the real dashboard on a synthetic feed (no network): used by the dashboard's tmux tests.
        .executableTarget(
            name: "dashboard-preview",
            dependencies: ["PushtopDashboard", "PushtopDashboardFakes", "PusherProtocol"],
            swiftSettings: strict
        ),
        // Examples/: small programs that use only the public API, built by `swift build` (see Examples/README.md).
        .executableTarget(
            name: "example-consumer",
            dependencies: ["PusherChannels"],
            path: "Examples/Consumer",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "example-presence-bot",
            dependencies: ["PusherChannels"],
            path: "Examples/PresenceBot",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "example-embedded-check",
            dependencies: ["PusherChannels", "PushtopServer", .product(name: "Logging", package: "swift-log")],
            path: "Examples/EmbeddedCheck",
            swiftSettings: strict
        ),
        // A seeded random number generator (SplitMix64) for the tests' mutations and the secretbox agreement.
        .target(name: "SeededRandom", path: "Tests/SeededRandom", swiftSettings: strict),
        // The Swift secretbox against libsodium (and NaCl's vector), called from a module of its own: run by
        // PusherProtocolTests on the debug build and by secretbox-release-check on the release build that ships.
        .target(
            name: "SecretBoxAgreement",
            dependencies: ["PusherProtocol", "PusherChannels", "CSodium", "SeededRandom"],
            path: "Tests/SecretBoxAgreement",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "secretbox-release-check",
            dependencies: ["SecretBoxAgreement"],
            path: "Tests/SecretBoxReleaseCheck",
            swiftSettings: strict
        ),
        // A scriptable protocol server (close codes, silence, malformed frames on demand) shared by the tests.
        .target(
            name: "PushtopTestSupport",
            dependencies: [
                "SeededRandom",
                "PusherProtocol",
                "PusherChannels",
                "PushtopServer",
                "PushtopConformance",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                "PushtopRedis",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "WSCompression", package: "swift-websocket"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/PushtopTestSupport",
            swiftSettings: strict
        ),
        // The dashboard's test doubles (a scripted feed, backend and API; the demo generator): for the tests and
        // dashboard-preview, not shipped in the library.
        .target(
            name: "PushtopDashboardFakes",
            dependencies: ["PushtopDashboard", "PusherProtocol"],
            path: "Tests/PushtopDashboardFakes",
            swiftSettings: strict
        ),
        // Tests in two tiers (scripts/test runs them target by target, units first).
        // The unit tier: no tmux, no child processes, no redis-server (in-process servers on loopback are fine).
        .testTarget(
            name: "PusherProtocolTests",
            dependencies: ["PusherProtocol", "PushtopTestSupport", "SecretBoxAgreement", "CSodium"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopConformanceTests",
            dependencies: ["PushtopConformance", "PushtopServer", "PushtopTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PusherChannelsTests",
            dependencies: ["PusherChannels", "PushtopServer", "PushtopTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopServerTests",
            dependencies: [
                "PushtopServer", "PusherChannels", "PushtopTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopProxyTests",
            dependencies: [
                "PushtopProxy", "PusherProtocol", "PushtopServer", "PushtopTestSupport", "PushtopClientConformance",
                "PushtopConformance",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopRedisTests",
            dependencies: ["PushtopRedis", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopKitTests", dependencies: ["PushtopKit", "PushtopTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "PushtopDashboardTests",
            dependencies: [
                "PushtopDashboard", "PushtopDashboardFakes", "PushtopKit", "PushtopCLI", "PushtopConfig",
                "PusherChannels",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopCLITests",
            dependencies: [
                "PushtopCLI", "PushtopConfig", "PushtopKit", "PusherChannels",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The end-to-end tier: real `redis-server`s, the real binaries (pushtop, dashboard-preview, the examples)
        // as child processes, tmux. Binaries are started through PushtopTestSupport's launchers.
        .testTarget(
            name: "PusherChannelsEndToEndTests",
            dependencies: ["PusherChannels", "PushtopServer", "PushtopTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopRedisEndToEndTests",
            dependencies: [
                "PushtopRedis", "PushtopTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopServerEndToEndTests",
            dependencies: [
                "PushtopServer", "PusherChannels", "PushtopRedis", "PushtopTestSupport",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopCLIEndToEndTests",
            dependencies: [
                "pushtop", "PushtopCLI", "example-embedded-check", "PusherChannels", "PushtopServer",
                "PushtopConformance",
                "PushtopTestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopDashboardEndToEndTests",
            dependencies: [
                "pushtop", "dashboard-preview", "PushtopDashboard", "PushtopDashboardFakes", "PusherChannels",
                "PushtopServer", "PushtopTestSupport",
            ],
            swiftSettings: strict
        ),
    ]
)
