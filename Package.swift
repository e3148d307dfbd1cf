// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "EasyNetwork",
    platforms: [.iOS(.v13), .macOS(.v10_15), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "EasyNetwork", targets: ["EasyNetwork"]),
        .library(name: "EasyNetworkTesting", targets: ["EasyNetworkTesting"]),
        .executable(name: "EasyNetworkDemo", targets: ["EasyNetworkDemo"]),
        // Opt-in products: an SDK pays only for those it imports.
        .library(name: "EasyNetworkPlugins", targets: ["EasyNetworkPlugins"]),
        .library(name: "EasyNetworkOrchestration", targets: ["EasyNetworkOrchestration"]),
    ],
    targets: [
        .target(name: "EasyNetwork"),
        .target(name: "EasyNetworkTesting"),
        .executableTarget(
            name: "EasyNetworkDemo",
            dependencies: ["EasyNetwork", "EasyNetworkTesting", "EasyNetworkPlugins", "EasyNetworkOrchestration"],
            path: "Examples/EasyNetworkDemo"
        ),
        .target(name: "EasyNetworkPlugins", dependencies: ["EasyNetwork"]),
        .target(name: "EasyNetworkOrchestration", dependencies: ["EasyNetwork"]),
        // EmbeddingHygieneTests checks a RequestBatch next to the core's objects.
        .testTarget(name: "EasyNetworkTests", dependencies: ["EasyNetwork", "EasyNetworkTesting", "EasyNetworkOrchestration"]),
        .testTarget(name: "EasyNetworkPluginsTests", dependencies: ["EasyNetworkPlugins", "EasyNetwork", "EasyNetworkTesting"]),
        .testTarget(
            name: "EasyNetworkOrchestrationTests",
            dependencies: ["EasyNetworkOrchestration", "EasyNetwork", "EasyNetworkTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
