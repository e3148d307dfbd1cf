import EasyNetwork
import EasyNetworkCache
import EasyNetworkTesting
import Foundation
import XCTest

/// A cached request with its own headers, as the fixture's entries were stored with.
private struct FixtureGet: APIRequest {
    typealias Response = [String: Int]
    let api: String
    let policy: CachePolicy
    var extraHeaders: [String: String] = [:]
    var cachePolicy: CachePolicy? { policy }
    var headers: [String: String]? { extraHeaders }
}

/// A response cache folder written by EasyNetwork 0.3.0 (`Fixtures/cache-0.3.0`) is read
/// and served by this version (issue 31: what users have on disk survives the upgrade).
///
/// The folder was made by ``testWriteTheFixtureFolder()`` on 0.3.0's code, run with
/// `EASYNETWORK_WRITE_FIXTURES=1 swift test --filter CacheReleaseFixtureTests`. Its
/// entries are keyed by URL, so the server listens on the port they were written with.
final class CacheReleaseFixtureTests: ServerTestCase {
    static let port: UInt16 = 47_311
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/cache-0.3.0")
    /// Not before 2100: the entries are fresh for any `maxAge` the tests give.
    static let forever: TimeInterval = 100 * 365 * 24 * 60 * 60

    var folder: URL!
    let queue = NetworkQueue()

    override func setUpWithError() throws {
        do {
            server = try LoopbackServer(port: Self.port)
        } catch {
            XCTFail("the fixture's entries name port \(Self.port), which is taken: \(error)")
            throw error
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("easynetwork-cache-fixture-\(UUID().uuidString)")
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
        super.tearDown()
    }

    /// A host on the fixed port with the cache in `directory`.
    private func host(_ directory: URL) -> HostConfiguration {
        let host = makeHost()
        host.responseCache = ResponseCache(directory: directory, maxBytes: 1 << 20)
        return host
    }

    private func fetch(_ request: FixtureGet, host: HostConfiguration) -> Result<[String: Int], NetworkError>? {
        let op = RequestOperation(request: request, configuration: host, responseDecoder: request.responseDecoder)
        let done = expectation(description: "fetch")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 10)
        return op.result
    }

    /// A copy of the fixture folder (reading an entry touches its file).
    private func copyOfFixture() throws -> URL {
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: Self.fixture.path).isEmpty, "the fixture folder is empty")
        try FileManager.default.copyItem(at: Self.fixture, to: folder)
        return folder
    }

    func testAFreshEntryOf030IsServedWithoutTheNetwork() throws {
        server.route("GET", "/profile") { _ in .json(#"{"version": 99}"#) }
        let host = self.host(try copyOfFixture())
        XCTAssertEqual(try fetch(FixtureGet(api: "/profile", policy: .cacheElseNetwork(maxAge: Self.forever)), host: host)?.get(), ["version": 1])
        XCTAssertEqual(server.requests(path: "/profile").count, 0, "served from the 0.3.0 entry")
    }

    func testA030EntryRevalidatesWithItsValidatorsAndA304ServesIt() throws {
        server.route("GET", "/profile") { request in
            request.header("If-None-Match") == "\"p1\"" ? .status(304, headers: ["ETag": "\"p1\""]) : .json(#"{"version": 99}"#)
        }
        let host = self.host(try copyOfFixture())
        XCTAssertEqual(try fetch(FixtureGet(api: "/profile", policy: .revalidate), host: host)?.get(), ["version": 1])
        XCTAssertEqual(server.requests(path: "/profile").last?.header("If-None-Match"), "\"p1\"")
        XCTAssertEqual(server.requests(path: "/profile").last?.header("If-Modified-Since"), "Sat, 21 Nov 2026 10:00:00 GMT")
    }

    func testAPrivate030EntryAnswersOnlyItsCredentialAndVariedHeader() throws {
        server.route("GET", "/me") { _ in .json(#"{"version": 8}"#) }
        let host = self.host(try copyOfFixture())
        let owner = ["Authorization": "Bearer fixture-token", "X-Locale": "fr"]
        XCTAssertEqual(try fetch(FixtureGet(api: "/me", policy: .cacheElseNetwork(maxAge: Self.forever), extraHeaders: owner), host: host)?.get(), ["version": 7])
        XCTAssertEqual(server.requests(path: "/me").count, 0, "served from the 0.3.0 entry")
        let other = ["Authorization": "Bearer someone-else", "X-Locale": "fr"]
        XCTAssertEqual(try fetch(FixtureGet(api: "/me", policy: .cacheElseNetwork(maxAge: Self.forever), extraHeaders: other), host: host)?.get(), ["version": 8])
        let otherLocale = ["Authorization": "Bearer fixture-token", "X-Locale": "de"]
        XCTAssertEqual(try fetch(FixtureGet(api: "/me", policy: .cacheElseNetwork(maxAge: Self.forever), extraHeaders: otherLocale), host: host)?.get(), ["version": 8])
        XCTAssertEqual(server.requests(path: "/me").count, 2)
    }

    /// Writes `Fixtures/cache-0.3.0` (run on 0.3.0's code; see the type's comment).
    func testWriteTheFixtureFolder() throws {
        guard ProcessInfo.processInfo.environment["EASYNETWORK_WRITE_FIXTURES"] == "1" else {
            throw XCTSkip("writes the fixture only with EASYNETWORK_WRITE_FIXTURES=1")
        }
        server.route("GET", "/profile") { _ in
            .json(#"{"version": 1}"#, headers: ["ETag": "\"p1\"", "Last-Modified": "Sat, 21 Nov 2026 10:00:00 GMT"])
        }
        server.route("GET", "/me") { _ in
            .json(#"{"version": 7}"#, headers: ["Cache-Control": "private", "Vary": "X-Locale"])
        }
        try? FileManager.default.removeItem(at: Self.fixture)
        let host = self.host(Self.fixture)
        XCTAssertEqual(try fetch(FixtureGet(api: "/profile", policy: .cacheElseNetwork(maxAge: 60)), host: host)?.get(), ["version": 1])
        let owner = ["Authorization": "Bearer fixture-token", "X-Locale": "fr"]
        XCTAssertEqual(try fetch(FixtureGet(api: "/me", policy: .cacheElseNetwork(maxAge: 60), extraHeaders: owner), host: host)?.get(), ["version": 7])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: Self.fixture.path).count, 2)
    }
}
