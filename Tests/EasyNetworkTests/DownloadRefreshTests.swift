import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

/// The README's refresh pattern (the refresh sent with `queue.send` from the refresh
/// closure) with a download that gets 401 on a queue one wide: the download lends its
/// slot while it waits, so the refresh runs and the download replays.
final class DownloadRefreshTests: ServerTestCase {
    private struct Token: Decodable, Sendable { let token: String }
    private struct Refresh: APIRequest {
        typealias Response = Token
        var api: String { "/refresh" }
        var method: NetworkService.Method { .post }
        var requiresAuthentication: Bool { false }
        var responseDecoder: ResponseDecoder<Token> { .decodable() }
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
        let op = DownloadOperation(request: TestRequest("/private"), to: folder.appendingPathComponent("p.bin"), configuration: host)
        let done = expectation(description: "download")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(op.result).get()).count, 1000)
        XCTAssertEqual(server.requests.map(\.path), ["/private", "/refresh", "/private"])
    }
}
