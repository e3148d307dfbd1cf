import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

struct CachedGet: APIRequest {
    typealias Response = [String: Int]
    let api: String
    let policy: CachePolicy
    var cachePolicy: CachePolicy? { policy }
}

/// A cached request with its own headers and interceptors.
struct CachedUserGet: APIRequest {
    typealias Response = [String: String]
    let api: String
    let policy: CachePolicy
    var extraHeaders: [String: String] = [:]
    var extraInterceptors: [any RequestInterceptor] = []
    var cachePolicy: CachePolicy? { policy }
    var headers: [String: String]? { extraHeaders }
    var interceptors: [any RequestInterceptor] { extraInterceptors }
}

/// A Boolean the server's routes read while the test changes it.
final class CacheRouteSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Bool

    init(_ value: Bool) { self.value = value }

    var isOn: Bool {
        get { lock.lock(); defer { lock.unlock() }; return value }
        set { lock.lock(); value = newValue; lock.unlock() }
    }
}

/// A resource with an ETag that counts full (200) and not-modified (304) answers.
final class VersionedResource: @unchecked Sendable {
    private let lock = NSLock()
    private var version = 1
    private(set) var fullResponses = 0
    private(set) var notModified = 0

    func bump() { lock.lock(); version += 1; lock.unlock() }

    func reply(to request: RecordedRequest) -> LoopbackReply {
        lock.lock(); defer { lock.unlock() }
        let etag = "\"v\(version)\""
        if request.header("If-None-Match") == etag {
            notModified += 1
            return .status(304, headers: ["ETag": etag])
        }
        fullResponses += 1
        return .json(#"{"version": \#(version)}"#, headers: ["ETag": etag, "Last-Modified": "Sat, 21 Nov 2026 10:00:00 GMT"])
    }
}

/// A response cache in a folder of its own, a host that uses it, and a fetch that waits.
class CacheTestCase: ServerTestCase {
    var cache: ResponseCache!
    var folder: URL!
    let queue = NetworkQueue()

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("easynetwork-cache-\(UUID().uuidString)")
        cache = ResponseCache(directory: folder, maxBytes: 1 << 20)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    func host() -> HostConfiguration {
        let host = makeHost()
        host.responseCache = cache
        return host
    }

    func fetch(_ request: CachedGet, host: HostConfiguration, events: Collector<String>? = nil) -> Result<[String: Int], NetworkError>? {
        let op = RequestOperation(request: request, configuration: host, responseDecoder: request.responseDecoder)
        op.onCachedValue = { events?.append("cached \($0["version"] ?? 0)") }
        op.success = { events?.append("network \($0["version"] ?? 0)") }
        let done = expectation(description: "fetch")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 5)
        return op.result
    }
}

final class CacheTests: CacheTestCase {
    func testCacheThenNetworkDeliversTheStoredCopyFirst() {
        let resource = VersionedResource()
        server.route("GET", "/doc") { resource.reply(to: $0) }
        let host = self.host()
        let events = Collector<String>()
        _ = fetch(CachedGet(api: "/doc", policy: .cacheThenNetwork), host: host, events: events)
        resource.bump()
        _ = fetch(CachedGet(api: "/doc", policy: .cacheThenNetwork), host: host, events: events)
        XCTAssertEqual(events.values, ["network 1", "cached 1", "network 2"])
    }

    func testNotModifiedIsServedFromTheCache() throws {
        let resource = VersionedResource()
        server.route("GET", "/doc") { resource.reply(to: $0) }
        let host = self.host()
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .revalidate), host: host)?.get(), ["version": 1])
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .revalidate), host: host)?.get(), ["version": 1])
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .revalidate), host: host)?.get(), ["version": 1])
        XCTAssertEqual(resource.fullResponses, 1)
        XCTAssertEqual(resource.notModified, 2)
        XCTAssertEqual(server.requests(path: "/doc").last?.header("If-None-Match"), "\"v1\"")
        XCTAssertEqual(server.requests(path: "/doc").last?.header("If-Modified-Since"), "Sat, 21 Nov 2026 10:00:00 GMT")
        resource.bump()
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .revalidate), host: host)?.get(), ["version": 2])
        XCTAssertEqual(resource.fullResponses, 2)
    }

    func testCacheElseNetworkHonoursMaxAge() throws {
        let resource = VersionedResource()
        server.route("GET", "/doc") { resource.reply(to: $0) }
        let host = self.host()
        _ = fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        resource.bump()
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)?.get(), ["version": 1])
        XCTAssertEqual(server.requests(path: "/doc").count, 1, "served without the network")
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 0)), host: host)?.get(), ["version": 2])
        XCTAssertEqual(server.requests(path: "/doc").count, 2)
    }

    func testNetworkOnlyAndNoStoreAndFailuresAreNotStored() {
        server.route("GET", "/secret") { _ in .json(#"{"version": 9}"#, headers: ["Cache-Control": "no-store"]) }
        server.route("GET", "/plain") { _ in .json(#"{"version": 1}"#) }
        let host = self.host()
        _ = fetch(CachedGet(api: "/secret", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        _ = fetch(CachedGet(api: "/plain", policy: .networkOnly), host: host)
        _ = fetch(CachedGet(api: "/status/500", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        XCTAssertEqual(cache.totalBytes, 0)
    }

    func testEvictionAtTheSizeCapDropsTheLeastRecentlyUsed() throws {
        let small = ResponseCache(directory: folder.appendingPathComponent("small"), maxBytes: 3000)
        let host = makeHost()
        host.responseCache = small
        let filler = String(repeating: "x", count: 700)
        for name in ["a", "b", "c", "d"] {
            server.route("GET", "/\(name)") { _ in .json(#"{"version": 1, "\#(filler)": 0}"#) }
        }
        _ = fetch(CachedGet(api: "/a", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        Thread.sleep(forTimeInterval: 0.02)
        _ = fetch(CachedGet(api: "/b", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        Thread.sleep(forTimeInterval: 0.02)
        _ = fetch(CachedGet(api: "/c", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        Thread.sleep(forTimeInterval: 0.02)
        _ = fetch(CachedGet(api: "/a", policy: .cacheElseNetwork(maxAge: 60)), host: host)  // a is used again: b is now the oldest
        Thread.sleep(forTimeInterval: 0.02)
        _ = fetch(CachedGet(api: "/d", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        XCTAssertLessThanOrEqual(small.totalBytes, 3000)
        let before = server.requests.count
        _ = fetch(CachedGet(api: "/a", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        _ = fetch(CachedGet(api: "/d", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        XCTAssertEqual(server.requests.count, before, "a and d stayed")
        _ = fetch(CachedGet(api: "/b", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        XCTAssertEqual(server.requests.count, before + 1, "b was evicted")
    }

    func testCorruptedOrTruncatedEntryIsIgnoredAndRemoved() throws {
        let resource = VersionedResource()
        server.route("GET", "/doc") { resource.reply(to: $0) }
        let host = self.host()
        _ = fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        XCTAssertEqual(files.count, 1)
        let file = try XCTUnwrap(files.first)
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 3] ^= 0xFF
        try bytes.write(to: file)
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)?.get(), ["version": 1])
        XCTAssertEqual(resource.fullResponses, 2, "the corrupt entry was not served")
        try Data(bytes.prefix(10)).write(to: file)
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)?.get(), ["version": 1])
        XCTAssertEqual(resource.fullResponses, 3, "the truncated entry was not served")
        try Data("garbage".utf8).write(to: file)
        _ = fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        XCTAssertEqual(resource.fullResponses, 4)
    }
}
