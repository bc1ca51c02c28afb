// swift-tools-version: 6.0
// Coverage-guided fuzzers (libFuzzer) of pushtop's parsers. A package of its own, so that the main build and its
// tests never compile them: build and run them with `scripts/fuzz` (see docs/robustness.md).
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "pushtop-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "pushtop", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .systemLibrary(name: "CFuzzerDriver", path: "Sources/CFuzzerDriver"),
        // Each fuzzer depends only on the module it exercises, so that `scripts/fuzz --only NAME` stays small.
        .executableTarget(
            name: "fuzz-json", dependencies: ["CFuzzerDriver", .product(name: "PusherProtocol", package: "pushtop")],
            swiftSettings: strict),
        .executableTarget(
            name: "fuzz-message",
            dependencies: ["CFuzzerDriver", .product(name: "PusherProtocol", package: "pushtop")],
            swiftSettings: strict),
        .executableTarget(
            name: "fuzz-api",
            dependencies: [
                "CFuzzerDriver", .product(name: "PushtopServer", package: "pushtop"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "fuzz-theme",
            dependencies: ["CFuzzerDriver", .product(name: "PushtopDashboard", package: "pushtop")],
            swiftSettings: strict),
        // The config file's reader (PushtopConfig: ConfigFile, Profile), without the command line's packages.
        .executableTarget(
            name: "fuzz-config", dependencies: ["CFuzzerDriver", .product(name: "PushtopConfig", package: "pushtop")],
            swiftSettings: strict),
    ]
)
