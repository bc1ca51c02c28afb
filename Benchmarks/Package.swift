// swift-tools-version: 6.1
// pushtop's benchmarks: a package of its own (depending on the root package by path, as Fuzz/ does), so that a
// package depending on PusherChannels resolves only what that library needs, never package-benchmark.
//   swift package --package-path Benchmarks benchmark            # HotPaths (release)
//   swift build --package-path Benchmarks -c release --product pushtop-benchmarks
// See README.md here; scripts/bench-smoke is CI's smoke run.
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "pushtop-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "pushtop", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // Per-operation benchmarks (package-benchmark): `swift package benchmark`.
        .executableTarget(
            name: "HotPaths",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "PusherChannels", package: "pushtop"),
                .product(name: "PushtopServer", package: "pushtop"),
                // `watch`'s output format (WatchLine), so that the benchmark measures the very lines `watch` prints.
                .product(name: "PushtopCLI", package: "pushtop"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "HotPaths",
            swiftSettings: strict,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Whole-system load tools (bulk loopback rate, watch through a pipe, idle connections).
        .executableTarget(
            name: "pushtop-benchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "PusherChannels", package: "pushtop"),
                .product(name: "PushtopRedis", package: "pushtop"),
                .product(name: "PushtopCLI", package: "pushtop"),
                // The dashboard's debug console (`console-view`).
                .product(name: "PushtopDashboard", package: "pushtop"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tools/LoadTools",
            swiftSettings: strict
        ),
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tools/BenchmarkSupport",
            swiftSettings: strict
        ),
    ]
)
