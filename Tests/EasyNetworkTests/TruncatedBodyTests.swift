import EasyNetwork
import EasyNetworkRetry
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A body cut short (the server declares N bytes and closes after fewer) is a transient
/// transport error, retried like a connection reset (for downloads see
/// Tests/EasyNetworkDownloadsTests/DownloadRetryTests.swift).
final class TruncatedBodyTests: ServerTestCase {
    func testTruncatedBodyIsAConnectionLossForTheCaller() {
        server.route("GET", "/cut") { _ in .truncatedBody(declaredLength: 10_000, sentBytes: 1000) }
        guard let error = failure(of: send(TestRequest("/cut"))) else { return }
        XCTAssertEqual(error.kind, .transport)
        XCTAssertEqual(error.urlError?.code, .networkConnectionLost, "\(error)")
    }

    func testTruncatedBodyIsRetriedByTheDefaultPolicy() throws {
        let served = Collector<Int>()
        server.route("GET", "/cut-once") { _ in
            served.append(1)
            return served.count == 1
                ? .truncatedBody(declaredLength: 10_000, sentBytes: 1000)
                : .json(#"{"ok": true}"#)
        }
        let host = makeHost()
        host.retryPolicy = .default
        let value = value(of: send(TestRequest("/cut-once"), host: host))
        XCTAssertEqual((value as? [String: Any])?["ok"] as? Bool, true)
        XCTAssertEqual(server.requests(path: "/cut-once").count, 2)
    }
}
