// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "EasyNetwork",
    platforms: [.iOS(.v13), .macOS(.v10_15), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "EasyNetwork", targets: ["EasyNetwork"]),
        .library(name: "EasyNetworkTesting", targets: ["EasyNetworkTesting"]),
        .executable(name: "EasyNetworkDemo", targets: ["EasyNetworkDemo"]),
    ],
    targets: [
        .target(name: "EasyNetwork"),
        .target(name: "EasyNetworkTesting"),
        .executableTarget(
            name: "EasyNetworkDemo",
            dependencies: ["EasyNetwork", "EasyNetworkTesting"],
            path: "Examples/EasyNetworkDemo"
        ),
        .testTarget(name: "EasyNetworkTests", dependencies: ["EasyNetwork", "EasyNetworkTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
