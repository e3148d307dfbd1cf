import EasyNetwork
import EasyNetworkCache
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

    /// The header of a cache entry as the Codable `CachedResponse` of earlier versions
    /// wrote it with `JSONEncoder` (the checksum unsigned, the date in seconds since 2001).
    private struct EarlierEntryHeader: Encodable {
        var key: String
        var url: String
        var statusCode: Int
        var headers: [String: String]
        var storedAt: Date
        var vary: [String: String]
        var bodyLength: Int
        var bodyChecksum: UInt64
    }

    /// FNV-1a, 64 bits, as entries are checked with.
    private func fnv1a(_ data: Data) -> UInt64 {
        data.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }

    func testEntryWrittenByAnEarlierVersionIsServed() throws {
        server.route("GET", "/doc") { _ in .json(#"{"version": 1}"#, headers: ["ETag": "\"v1\"", "Vary": "Accept-Language"]) }
        let host = self.host()
        _ = fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        let file = try XCTUnwrap(try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).first)
        let stored = try Data(contentsOf: file)
        XCTAssertEqual(stored.prefix(4), Data("ENC2".utf8))
        let length = stored.dropFirst(4).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let header = try XCTUnwrap(JSONSerialization.jsonObject(with: stored.subdata(in: 8..<(8 + length))) as? [String: Any])

        // Rewrite the entry as an earlier version would have, with another body whose
        // checksum needs all 64 bits (a signed reader would lose it).
        var body = Data(#"{"version": 7}"#.utf8)
        while fnv1a(body) < 1 << 63 { body.append(UInt8(ascii: " ")) }
        let earlier = EarlierEntryHeader(
            key: try XCTUnwrap(header["key"] as? String),
            url: try XCTUnwrap(header["url"] as? String),
            statusCode: 200,
            headers: try XCTUnwrap(header["headers"] as? [String: String]),
            storedAt: Date(),
            vary: try XCTUnwrap(header["vary"] as? [String: String]),
            bodyLength: body.count,
            bodyChecksum: fnv1a(body)
        )
        XCTAssertEqual(earlier.vary.keys.sorted(), ["accept-language"])
        let encoded = try JSONEncoder().encode(earlier)
        var entry = Data("ENC2".utf8)
        entry.append(contentsOf: [0, 0, UInt8(encoded.count >> 8), UInt8(encoded.count & 0xFF)])
        entry.append(encoded)
        entry.append(body)
        try entry.write(to: file)

        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)?.get(), ["version": 7])
        XCTAssertEqual(server.requests(path: "/doc").count, 1, "served from the earlier entry")
        XCTAssertEqual(try Data(contentsOf: file), entry, "an entry that is read is left as it is")
    }

    func testStoredEntryHeaderIsJSONAndKeepsEveryHeaderButCredentials() throws {
        server.route("GET", "/doc") { _ in
            .json(#"{"version": 1}"#, headers: [
                "ETag": "\"v1\"", "Set-Cookie": "a=b", "X-Kept": "yes", "set-cookie2": "c=d",
                "Authentication-Info": "nextnonce=1", "PROXY-Authentication-Info": "nextnonce=2",
            ])
        }
        let host = self.host()
        _ = fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        let file = try XCTUnwrap(try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).first)
        XCTAssertTrue(file.lastPathComponent.hasPrefix("v2-"))
        let stored = try Data(contentsOf: file)
        let length = stored.dropFirst(4).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let header = try XCTUnwrap(JSONSerialization.jsonObject(with: stored.subdata(in: 8..<(8 + length))) as? [String: Any])
        let body = stored.subdata(in: (8 + length)..<stored.count)
        XCTAssertEqual(header["statusCode"] as? Int, 200)
        XCTAssertEqual(header["bodyLength"] as? Int, body.count)
        XCTAssertEqual((header["bodyChecksum"] as? NSNumber)?.uint64Value, fnv1a(body))
        XCTAssertEqual(try XCTUnwrap(header["storedAt"] as? Double), Date().timeIntervalSinceReferenceDate, accuracy: 60)
        let headers = try XCTUnwrap(header["headers"] as? [String: String])
        XCTAssertEqual(headers.first { $0.key.lowercased() == "x-kept" }?.value, "yes")
        XCTAssertEqual(headers.first { $0.key.lowercased() == "etag" }?.value, "\"v1\"")
        for name in ["set-cookie", "set-cookie2", "authentication-info", "proxy-authentication-info"] {
            XCTAssertNil(headers.first { $0.key.lowercased() == name }, "credentials are never written: \(name)")
        }
        XCTAssertTrue(try XCTUnwrap(header["key"] as? String).hasPrefix("GET http://127.0.0.1:"))
    }
}
