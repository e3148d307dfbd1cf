import EasyNetwork
import EasyNetworkDownloads
import EasyNetworkPlugins
import EasyNetworkTesting
import Foundation
import XCTest

/// Downloads and token refresh: a 401 refreshes once and the download replays with the
/// new token; with the documented refresh pattern (the refresh sent with `queue.send` from
/// the refresh closure) on a queue one wide, the download lends its slot while it waits.
final class DownloadRefreshTests: ServerTestCase {
    private struct Token: Decodable, Sendable { let token: String }
    private struct Refresh: APIRequest {
        typealias Response = Token
        var api: String { "/refresh" }
        var method: NetworkService.Method { .post }
        var requiresAuthentication: Bool { false }
        var responseDecoder: ResponseDecoder<Token> { .decodable() }
    }

    private var folder: URL!
    private let queue = NetworkQueue()

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("easynetwork-download-refresh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    func testDownloadRefreshThroughItsOwnFullQueueDoesNotDeadlock() throws {
        server.route("POST", "/refresh") { _ in .json(#"{"token": "fresh"}"#) }
        server.route("GET", "/private") { request in
            request.header("Authorization") == "Bearer fresh" ? .data(Data(count: 1000)) : .status(401)
        }
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        let host = makeHost()
        host.authenticator = TokenAuthenticator(token: "stale") { [weak host] in
            guard let host else { throw CancellationError() }
            return try await queue.send(Refresh(), configuration: host).token
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easynetwork-download-refresh-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let op = DownloadOperation(request: TestRequest("/private"), configuration: host, to: folder.appendingPathComponent("p.bin"))
        let done = expectation(description: "download")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(op.result).get()).count, 1000)
        XCTAssertEqual(server.requests.map(\.path), ["/private", "/refresh", "/private"])
    }

    func testDownloadReplaysOnceAfterATokenRefresh() throws {
        let resource = RangeResource(size: 50_000)
        let refreshes = Collector<Int>()
        server.route("GET", "/private") { request in
            guard request.header("Authorization") == "Bearer fresh" else {
                return .json(#"{"error": "token expired"}"#, status: 401, headers: ["WWW-Authenticate": #"Bearer realm="api""#])
            }
            return resource.reply(to: request)
        }
        let host = makeHost()
        host.authenticator = TokenAuthenticator(token: "stale") { done in
            refreshes.append(1)
            done(.success("fresh"))
        }
        let destination = folder.appendingPathComponent("private.bin")
        let op = DownloadOperation(request: TestRequest("/private"), configuration: host, to: destination)
        let done = expectation(description: "download")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 20)
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(op.result).get()), resource.body)
        XCTAssertEqual(refreshes.count, 1)
        XCTAssertEqual(server.requests(path: "/private").map { $0.header("Authorization") ?? "-" }, ["Bearer stale", "Bearer fresh"])
    }

    func testDownloadCancelledWhileWaitingForARefreshEndsCancelledOnce() throws {
        server.route("GET", "/private") { _ in .status(401) }
        let host = makeHost()
        let refreshing = expectation(description: "refresh started")
        host.authenticator = TokenAuthenticator(token: "stale") { _ in refreshing.fulfill() }   // never answers
        let op = DownloadOperation(request: TestRequest("/private"), configuration: host, to: folder.appendingPathComponent("wait.bin"))
        let results = Collector<Bool>()
        let done = expectation(description: "download")
        op.completion = { result in
            if case .failure(let error) = result { results.append(error.isCancelled) } else { results.append(false) }
            done.fulfill()
        }
        queue.addOperation(op)
        wait(for: [refreshing], timeout: 10)
        op.cancel()
        wait(for: [done], timeout: 10)
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(results.values, [true], "one completion, cancelled")
        XCTAssertEqual(server.requests(path: "/private").count, 1)
        XCTAssertTrue(op.isFinished)
    }
}
