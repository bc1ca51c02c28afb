// swift-tools-version: 6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "pushtop",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "PusherProtocol", targets: ["PusherProtocol"]),
        .library(name: "PusherChannels", targets: ["PusherChannels"]),
        .library(name: "PushtopServer", targets: ["PushtopServer"]),
        .library(name: "PushtopDashboard", targets: ["PushtopDashboard"]),
        .executable(name: "pushtop", targets: ["pushtop"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(name: "CSodium", path: "Sources/CSodium"),
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
                "CSodium",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "WSCompression", package: "swift-websocket"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PushtopServer",
            dependencies: [
                "PusherProtocol",
                "CSodium",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PushtopDashboard",
            dependencies: ["PusherProtocol", "CNcurses", .product(name: "TOMLKit", package: "TOMLKit")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "pushtop",
            dependencies: [
                "PusherChannels", "PushtopServer", "PushtopDashboard",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        // Micro-benchmarks of the client core (run in release; see Benchmarks/README.md).
        .executableTarget(
            name: "pushtop-benchmarks",
            dependencies: [
                "PusherChannels",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Benchmarks/PushtopBenchmarks",
            swiftSettings: strict
        ),
        // Runs the real dashboard on a synthetic feed (no network): used by the dashboard's tmux tests.
        .executableTarget(
            name: "dashboard-preview",
            dependencies: ["PushtopDashboard", "PusherProtocol"],
            swiftSettings: strict
        ),
        // A scriptable protocol server (close codes, silence, malformed frames on demand) shared by the tests.
        .target(
            name: "PushtopTestSupport",
            dependencies: [
                "PusherProtocol",
                "PusherChannels",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/PushtopTestSupport",
            swiftSettings: strict
        ),
        .testTarget(name: "PusherProtocolTests", dependencies: ["PusherProtocol"], swiftSettings: strict),
        .testTarget(
            name: "PusherChannelsTests",
            dependencies: ["PusherChannels", "PushtopServer", "PushtopTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopServerTests",
            dependencies: [
                "PushtopServer", "PusherChannels", "PushtopTestSupport",
                .product(name: "WSClient", package: "swift-websocket"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopDashboardTests",
            dependencies: ["PushtopDashboard", "dashboard-preview", "pushtop", "PusherChannels", "PushtopTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushtopCLITests",
            dependencies: ["pushtop", "PusherChannels", "PushtopServer", "PushtopTestSupport"],
            swiftSettings: strict
        ),
    ]
)
