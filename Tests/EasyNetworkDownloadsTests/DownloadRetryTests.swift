import EasyNetwork
import EasyNetworkRetry
import EasyNetworkDownloads
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download whose body is cut short (the server declares N bytes and closes after fewer)
/// fails as a lost connection, which the retry policy retries: the next attempt resumes
/// with a range, and a cancel during the backoff ends it at once.
final class DownloadRetryTests: DownloadTestCase {
    func testTruncatedDownloadIsRetriedAndResumesWithARange() throws {
        let total = 300_000
        let cut = 100_000
        let modified = "Tue, 03 Nov 2026 10:00:00 GMT"
        let served = Collector<Int>()
        server.route("GET", "/asset") { request in
            served.append(1)
            let headers = ["Last-Modified": modified, "Accept-Ranges": "bytes"]
            if let range = request.header("Range"), range.hasPrefix("bytes="), request.header("If-Range") == modified,
               let start = Int(range.dropFirst(6).split(separator: "-").first ?? ""), start < total {
                return .data(Self.pattern(start..<total), status: 206, headers: headers.merging(["Content-Range": "bytes \(start)-\(total - 1)/\(total)"]) { $1 })
            }
            if served.count == 1 {
                return .truncatedBody(declaredLength: total, sentBytes: cut, headers: headers)
            }
            return .data(Self.pattern(0..<total), headers: headers)
        }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(baseDelay: 0.05)
        let destination = folder.appendingPathComponent("asset.bin")
        let op = DownloadOperation(request: TestRequest("/asset"), configuration: host, to: destination)
        let done = expectation(description: "download")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 20)
        let data = try Data(contentsOf: try XCTUnwrap(op.result).get())
        XCTAssertEqual(data, Self.pattern(0..<total))
        let requests = server.requests(path: "/asset")
        XCTAssertEqual(requests.count, 2)
        XCTAssertTrue(requests.first?.header("Range").map { $0.hasPrefix("bytes=0-") } ?? true, requests.first?.header("Range") ?? "")
        XCTAssertTrue(requests.last?.header("Range")?.hasPrefix("bytes=\(cut)-") ?? false, requests.last?.header("Range") ?? "no Range")
        XCTAssertEqual(requests.last?.header("If-Range"), modified)
        XCTAssertEqual(requests.last?.header("Accept-Encoding"), "identity")
        XCTAssertEqual(op.resumedFromOffset, Int64(cut))
    }

    func testTruncatedDownloadWithoutRetryFailsAsAConnectionLoss() throws {
        server.route("GET", "/cut") { _ in .truncatedBody(declaredLength: 10_000, sentBytes: 1000) }
        let op = DownloadOperation(request: TestRequest("/cut"), configuration: makeHost(), to: folder.appendingPathComponent("cut.bin"))
        let done = expectation(description: "download")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 20)
        guard case .failure(let error)? = op.result else { return XCTFail("must fail") }
        XCTAssertEqual(error.urlError?.code, .networkConnectionLost, "\(error)")
    }

    func testDownloadCancelledWhileWaitingToRetryEndsCancelledOnce() throws {
        server.route("GET", "/cut") { _ in .truncatedBody(declaredLength: 10_000, sentBytes: 1000) }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(baseDelay: 5, jitter: 0)
        let op = DownloadOperation(request: TestRequest("/cut"), configuration: host, to: folder.appendingPathComponent("wait.bin"))
        let results = Collector<Bool>()
        let done = expectation(description: "download")
        op.completion = { result in
            if case .failure(let error) = result { results.append(error.isCancelled) } else { results.append(false) }
            done.fulfill()
        }
        queue.addOperation(op)
        let deadline = Date().addingTimeInterval(10)
        while server.requests(path: "/cut").isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.3)
        let cancelledAt = Date()
        op.cancel()
        wait(for: [done], timeout: 10)
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 4, "the 5 s backoff is not waited out")
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(results.values, [true], "one completion, cancelled")
        XCTAssertEqual(server.requests(path: "/cut").count, 1, "no retry after the cancel")
        XCTAssertTrue(op.isFinished)
    }

    /// Bytes `range` of the loopback pattern (byte `i` is `UInt8(i % 251)`).
    private static func pattern(_ range: Range<Int>) -> Data {
        Data(range.map { UInt8($0 % 251) })
    }
}
