// swift-tools-version:6.0
import PackageDescription

// Apple privacy manifests (article "Embedding in an SDK"): a library module ships its
// Sources/<Module>/PrivacyInfo.xcprivacy as a resource when the package is built on Apple
// platforms, so apps and their privacy report include it; elsewhere it is excluded, so Linux
// builds get no resource bundle and no Bundle.module code. Give every library target
// `exclude: privacyExclude, resources: privacyManifest`.
#if canImport(Darwin)
let privacyManifest: [Resource]? = [.copy("PrivacyInfo.xcprivacy")]
let privacyExclude: [String] = []
#else
let privacyManifest: [Resource]? = nil
let privacyExclude = ["PrivacyInfo.xcprivacy"]
#endif

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
        .library(name: "EasyNetworkCache", targets: ["EasyNetworkCache"]),
        .library(name: "EasyNetworkDownloads", targets: ["EasyNetworkDownloads"]),
        .library(name: "EasyNetworkPinning", targets: ["EasyNetworkPinning"]),
        .library(name: "EasyNetworkOutbox", targets: ["EasyNetworkOutbox"]),
        .library(name: "EasyNetworkRetry", targets: ["EasyNetworkRetry"]),
        .library(name: "EasyNetworkEnvelopes", targets: ["EasyNetworkEnvelopes"]),
        .library(name: "EasyNetworkUploads", targets: ["EasyNetworkUploads"]),
    ],
    targets: [
        .target(name: "EasyNetwork", exclude: privacyExclude, resources: privacyManifest),
        .target(name: "EasyNetworkTesting"),
        .executableTarget(
            name: "EasyNetworkDemo",
            dependencies: ["EasyNetwork", "EasyNetworkTesting", "EasyNetworkPlugins", "EasyNetworkOrchestration", "EasyNetworkDownloads", "EasyNetworkRetry", "EasyNetworkEnvelopes", "EasyNetworkUploads"],
            path: "Examples/EasyNetworkDemo"
        ),
        .target(name: "EasyNetworkPlugins", dependencies: ["EasyNetwork", "EasyNetworkFeatures"], exclude: privacyExclude, resources: privacyManifest),
        .target(name: "EasyNetworkOrchestration", dependencies: ["EasyNetwork", "EasyNetworkFeatures"], exclude: privacyExclude, resources: privacyManifest),
        .target(name: "EasyNetworkCache", dependencies: ["EasyNetwork", "EasyNetworkDigest", "EasyNetworkFeatures"], exclude: privacyExclude, resources: privacyManifest),
        .target(name: "EasyNetworkDownloads", dependencies: ["EasyNetwork"], exclude: privacyExclude, resources: privacyManifest),
        .target(name: "EasyNetworkPinning", dependencies: ["EasyNetwork", "EasyNetworkDigest", "EasyNetworkFeatures"], exclude: privacyExclude, resources: privacyManifest),
        // SHA-256 for the optional modules that need it (they may not import each other):
        // a target, not a product; the core never depends on it.
        .target(name: "EasyNetworkDigest", exclude: privacyExclude, resources: privacyManifest),
        .target(name: "EasyNetworkOutbox", dependencies: ["EasyNetwork", "EasyNetworkBackoff"], exclude: privacyExclude, resources: privacyManifest),
        .target(name: "EasyNetworkRetry", dependencies: ["EasyNetwork", "EasyNetworkBackoff", "EasyNetworkFeatures"], exclude: privacyExclude, resources: privacyManifest),
        // Installing and finding a host's optional features, for the products that have one
        // (compiled once, not once per product): a target, not a product; the core never depends on it.
        .target(name: "EasyNetworkFeatures", dependencies: ["EasyNetwork"], exclude: privacyExclude, resources: privacyManifest),
        // The backoff formula and Retry-After for the retry engine and the outbox (they may not
        // import each other): a target, not a product; the core never depends on it.
        .target(name: "EasyNetworkBackoff", exclude: privacyExclude, resources: privacyManifest),
        .target(name: "EasyNetworkEnvelopes", dependencies: ["EasyNetwork"], exclude: privacyExclude, resources: privacyManifest),
        .target(name: "EasyNetworkUploads", dependencies: ["EasyNetwork"], exclude: privacyExclude, resources: privacyManifest),
        // EmbeddingHygieneTests checks a RequestBatch next to the core's objects;
        // HostConfigurationTests sets every host property, the cache's and the
        // authenticator's too; retry and interceptor tests run next to a token;
        // EmbeddingHygieneTests checks downloads next to requests; fault matrices, the fuzz
        // test and error texts run with host retry policies (EasyNetworkRetry).
        // Helpers every test target shares (TestRequest, Collector, ServerTestCase); not a product.
        .target(name: "EasyNetworkTestSupport", dependencies: ["EasyNetwork", "EasyNetworkTesting"], path: "Tests/EasyNetworkTestSupport"),
        .testTarget(
            name: "EasyNetworkTests",
            dependencies: ["EasyNetwork", "EasyNetworkTesting", "EasyNetworkTestSupport", "EasyNetworkOrchestration", "EasyNetworkCache", "EasyNetworkPlugins", "EasyNetworkDownloads", "EasyNetworkRetry", "EasyNetworkEnvelopes", "EasyNetworkUploads", "EasyNetworkFeatures"]
        ),
        // DownloadRefreshTests: a download's token refresh. TokenRefreshTests: a business code's 401 signal.
        .testTarget(
            name: "EasyNetworkPluginsTests",
            dependencies: ["EasyNetworkPlugins", "EasyNetwork", "EasyNetworkTesting", "EasyNetworkTestSupport", "EasyNetworkDownloads", "EasyNetworkEnvelopes"]
        ),
        .testTarget(
            name: "EasyNetworkOrchestrationTests",
            dependencies: ["EasyNetworkOrchestration", "EasyNetwork", "EasyNetworkTesting", "EasyNetworkTestSupport"]
        ),
        // CacheStageTests keys entries on the token of a host's authenticator.
        // ReleaseFixtureTests reads a cache folder 0.3.0 wrote (Fixtures/cache-0.3.0).
        // CacheStageTests: a cached answer read through the host's envelope.
        .testTarget(name: "EasyNetworkCacheTests", dependencies: ["EasyNetworkCache", "EasyNetwork", "EasyNetworkTesting", "EasyNetworkTestSupport", "EasyNetworkPlugins", "EasyNetworkEnvelopes"], exclude: ["Fixtures"]),
        .testTarget(name: "EasyNetworkDigestTests", dependencies: ["EasyNetworkDigest"]),
        .testTarget(name: "EasyNetworkBackoffTests", dependencies: ["EasyNetworkBackoff"]),
        // The certificate fixtures (and the commands that made them) are read from the folder.
        // LoggingInterceptorTests: a refusal is named in the logs; downloads and tokens meet pins too.
        .testTarget(
            name: "EasyNetworkPinningTests",
            dependencies: ["EasyNetworkPinning", "EasyNetwork", "EasyNetworkTesting", "EasyNetworkTestSupport", "EasyNetworkPlugins", "EasyNetworkDownloads", "EasyNetworkRetry"],
            exclude: ["Fixtures"]
        ),
        // DownloadPipelineTests: a download is never read through the host's envelope, and
        // never sends a multipart body.
        .testTarget(name: "EasyNetworkDownloadsTests", dependencies: ["EasyNetworkDownloads", "EasyNetwork", "EasyNetworkTesting", "EasyNetworkTestSupport", "EasyNetworkRetry", "EasyNetworkEnvelopes", "EasyNetworkUploads"]),
        // The process OutboxCrashTests kills (SIGKILL) while it accepts and delivers entries;
        // the tests find it next to their own bundle in the build folder. OutboxTests
        // delivers with a host's TokenAuthenticator.
        .executableTarget(name: "EasyNetworkOutboxChild", dependencies: ["EasyNetworkOutbox", "EasyNetwork"], path: "Tests/EasyNetworkOutboxChild"),
        .testTarget(
            name: "EasyNetworkOutboxTests",
            dependencies: ["EasyNetworkOutbox", "EasyNetwork", "EasyNetworkTesting", "EasyNetworkTestSupport", "EasyNetworkOutboxChild", "EasyNetworkPlugins", "EasyNetworkRetry", "EasyNetworkUploads"],
            // ReleaseFixtureTests reads an outbox folder 0.3.0 wrote (Fixtures/outbox-0.3.0).
            exclude: ["Fixtures"]
        ),
        // The retry engine's rules with a driven clock, and against the loopback server;
        // RetryStageTests next to a token (a refresh is no retry), DownloadRetryTests next to downloads.
        .testTarget(
            name: "EasyNetworkRetryTests",
            dependencies: ["EasyNetworkRetry", "EasyNetwork", "EasyNetworkTesting", "EasyNetworkTestSupport", "EasyNetworkPlugins", "EasyNetworkDownloads"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
