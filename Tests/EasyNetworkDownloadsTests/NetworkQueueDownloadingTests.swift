import EasyNetwork
import EasyNetworkDownloads
import EasyNetworkTesting
import Foundation
import XCTest

/// `NetworkQueue.run(_:)` of a download: the file or the download's error, a task's cancel,
/// and one completion before it returns.
final class NetworkQueueDownloadingTests: DownloadTestCase {
    func testAsyncRunReturnsTheFileAndThrowsTheDownloadsError() async throws {
        let resource = RangeResource(size: 10_000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        let host = makeHost()
        let good = DownloadOperation(request: TestRequest("/file"), configuration: host, to: folder.appendingPathComponent("good.bin"))
        let url: URL = try await queue.run(good)
        XCTAssertEqual(try Data(contentsOf: url), resource.body)

        let missing = DownloadOperation(request: TestRequest("/status/404"), configuration: host, to: folder.appendingPathComponent("missing.bin"))
        do {
            try await queue.run(missing)
            XCTFail("a 404 must throw")
        } catch let error as NetworkError {
            XCTAssertEqual(error.statusCode, 404)
        }

        // The same download held as a plain Operation goes through the generic run.
        let erased: Operation = DownloadOperation(request: TestRequest("/status/404"), configuration: host, to: folder.appendingPathComponent("erased.bin"))
        do {
            try await queue.run(erased)
            XCTFail("a 404 must throw through the generic run too")
        } catch let error as NetworkError {
            XCTAssertEqual(error.statusCode, 404)
        }
    }

    func testCancellingTheTaskCancelsTheDownload() async throws {
        let resource = RangeResource(size: 4_000_000)
        resource.slow = true
        server.route("GET", "/file") { resource.reply(to: $0) }
        let op = DownloadOperation(request: TestRequest("/file"), configuration: makeHost(), to: folder.appendingPathComponent("cancel.bin"))
        let queue = self.queue
        let started = Date()
        let task = Task { [queue] in try await queue.run(op) }
        while server.requests(path: "/file").isEmpty && Date().timeIntervalSince(started) < 5 {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("must be cancelled")
        } catch let error as NetworkError {
            XCTAssertTrue(error.isCancelled)
        }
        XCTAssertTrue(op.isCancelled)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the slow body takes 2.5 s; the cancel ends it at once")
    }

    func testAsyncRunReturnsAfterTheCompletionAndAFinishedDownloadKeepsItsFile() async throws {
        let resource = RangeResource(size: 10_000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        let op = DownloadOperation(request: TestRequest("/file"), configuration: makeHost(), to: folder.appendingPathComponent("kept.bin"))
        let completions = Collector<Bool>()
        // A cancel that comes after the file was delivered (here from the completion,
        // before the operation finished) does not turn it into an error.
        op.completion = { [weak op] result in
            completions.append((try? result.get()) != nil)
            op?.cancel()
        }
        let url: URL = try await queue.run(op)
        XCTAssertEqual(completions.values, [true], "the completion ran once, before run returned")
        XCTAssertTrue(op.isCancelled)
        let again: URL = try await queue.run(op)
        XCTAssertEqual(again, url)
        XCTAssertEqual(completions.values, [true])
        XCTAssertEqual(server.requests(path: "/file").count, 1)
    }

    func testAsyncRunOfADownloadCancelledBeforeStartThrowsCancelledAndCallsBackOnce() async throws {
        let op = DownloadOperation(request: TestRequest("/file"), configuration: makeHost(), to: folder.appendingPathComponent("never.bin"))
        let completions = Collector<Bool>()
        op.completion = { completions.append((try? $0.get()) == nil) }
        op.cancel()
        do {
            _ = try await queue.run(op)
            XCTFail("must be cancelled")
        } catch let error as NetworkError {
            XCTAssertTrue(error.isCancelled)
        }
        XCTAssertEqual(completions.values, [true], "run returns after the completion ran, as run of a RequestOperation does")
        let deadline = Date().addingTimeInterval(10)
        while completions.values.isEmpty && Date() < deadline {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        try await Task.sleep(nanoseconds: 50_000_000)
        XCTAssertEqual(completions.values, [true], "one completion, a failure")
        if case .failure(let error)? = op.result {
            XCTAssertTrue(error.isCancelled)
        } else {
            XCTFail("the result is the cancellation")
        }
        XCTAssertEqual(server.requests.count, 0)
    }
}
