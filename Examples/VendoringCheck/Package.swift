// swift-tools-version:6.0
import PackageDescription

// The vendoring check (Scripts/check-vendoring.sh, run by .ci/run): two stand-ins for binary
// SDKs, each compiling its own renamed copy of EasyNetwork's core (AcmeNet, BetaNet: written
// into Vendored/ by Scripts/vendor.sh), and an app that links both SDKs and EasyNetwork
// itself. A package of its own, so the library's `swift test` never builds it.
let package = Package(
    name: "VendoringCheck",
    platforms: [.iOS(.v13), .macOS(.v10_15), .tvOS(.v13), .watchOS(.v6)],
    dependencies: [.package(name: "EasyNetwork", path: "../..")],
    targets: [
        .target(name: "AcmeNet", path: "Vendored/AcmeNet"),
        .target(name: "BetaNet", path: "Vendored/BetaNet"),
        .target(name: "AcmeSDK", dependencies: ["AcmeNet"]),
        .target(name: "BetaSDK", dependencies: ["BetaNet"]),
        .executableTarget(
            name: "VendoringCheck",
            dependencies: [
                "AcmeSDK",
                "BetaSDK",
                .product(name: "EasyNetwork", package: "EasyNetwork"),
                .product(name: "EasyNetworkTesting", package: "EasyNetwork"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
