// swift-tools-version:6.0
import PackageDescription

// Benchmarks live in their own package so the library's package stays dependency-free
// and `swift test` never builds them. Run: swift run -c release --package-path Benchmarks
let package = Package(
    name: "EasyNetworkBenchmarks",
    platforms: [.macOS(.v10_15)],
    dependencies: [.package(name: "EasyNetwork", path: "..")],
    targets: [
        .executableTarget(
            name: "EasyNetworkBenchmarks",
            dependencies: [
                .product(name: "EasyNetwork", package: "EasyNetwork"),
                .product(name: "EasyNetworkTesting", package: "EasyNetwork"),
                .product(name: "EasyNetworkDownloads", package: "EasyNetwork"),
                .product(name: "EasyNetworkOutbox", package: "EasyNetwork"),
                .product(name: "EasyNetworkRetry", package: "EasyNetwork"),
                .product(name: "EasyNetworkEnvelopes", package: "EasyNetwork"),
                .product(name: "EasyNetworkUploads", package: "EasyNetwork"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
