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
    ],
    targets: [
        .target(name: "EasyNetwork"),
        .target(name: "EasyNetworkTesting"),
        .executableTarget(
            name: "EasyNetworkDemo",
            dependencies: ["EasyNetwork", "EasyNetworkTesting", "EasyNetworkPlugins"],
            path: "Examples/EasyNetworkDemo"
        ),
        .target(name: "EasyNetworkPlugins", dependencies: ["EasyNetwork"]),
        .testTarget(name: "EasyNetworkTests", dependencies: ["EasyNetwork", "EasyNetworkTesting"]),
        .testTarget(name: "EasyNetworkPluginsTests", dependencies: ["EasyNetworkPlugins", "EasyNetwork", "EasyNetworkTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
