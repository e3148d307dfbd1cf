import EasyNetwork
import EasyNetworkDownloads
import EasyNetworkTesting
import Foundation
import XCTest

/// A download's life: the file in place with progress ending at one, an existing
/// destination refused or replaced, failures that leave no file, a cancel before start.
final class DownloadOperationTests: DownloadTestCase {
    func testDownloadWritesTheFileWithMonotonicProgressEndingAtOne() throws {
        let resource = RangeResource(size: 3_000_000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        let fractions = Collector<Double>()
        let (_, result) = download("/file", to: "nested/deeper/file.bin", progress: fractions)
        let url = try XCTUnwrap(result).get()
        XCTAssertEqual(try Data(contentsOf: url), resource.body)
        XCTAssertEqual(fractions.values, fractions.values.sorted(), "monotonic")
        XCTAssertEqual(fractions.values.last, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path + ".partial"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path + ".partial.json"))
    }

    /// Issue 20: the host is the second argument, as for `RequestOperation`, and code
    /// written for 0.2.0 (`to:options:configuration:`) still compiles, deprecated, and
    /// downloads through the host it names (not the shared one).
    func testAFinishedDownloadIsReleased() throws {
        let resource = RangeResource(size: 10_000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        weak var released: DownloadOperation?
        do {
            let (op, result) = download("/file", to: "released.bin", progress: Collector<Double>())
            XCTAssertNotNil(try result?.get())
            released = op
        }
        // The queue lets it go once it finished; nothing else may keep it (its progress
        // reports hold it only while they are on their way).
        let deadline = Date().addingTimeInterval(5)
        while released != nil && Date() < deadline { RunLoop.current.run(until: Date().addingTimeInterval(0.01)) }
        XCTAssertNil(released, "a finished download is released")
    }

    /// A download that failed, or was cancelled while its bytes arrived, is released too:
    /// its transfers (which the session keeps until their tasks complete) do not keep it.
    func testAFailedOrCancelledDownloadIsReleased() throws {
        let resource = RangeResource(size: 3_000_000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        weak var failed: DownloadOperation?
        weak var cancelled: DownloadOperation?
        do {
            let (missing, missingResult) = download("/status/404", to: "missing.bin")
            guard case .failure(let error)? = missingResult else { return XCTFail("must fail") }
            XCTAssertEqual(error.statusCode, 404)
            failed = missing
            let (stopped, stoppedResult) = download("/file", to: "stopped.bin", options: DownloadOptions(segmentSize: 64 * 1024), cancelWhen: { self.size($0) > 0 })
            XCTAssertNotNil(stoppedResult)
            cancelled = stopped
        }
        let deadline = Date().addingTimeInterval(5)
        while (failed != nil || cancelled != nil) && Date() < deadline { RunLoop.current.run(until: Date().addingTimeInterval(0.01)) }
        XCTAssertNil(failed, "a failed download is released")
        XCTAssertNil(cancelled, "a cancelled download is released")
    }

    func testTheHostComesSecondAndTheFormerOrderStillUsesTheHostItNames() throws {
        let resource = RangeResource(size: 1000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        let host = makeHost()
        let current = DownloadOperation(request: TestRequest("/file"), configuration: host, to: folder.appendingPathComponent("new.bin"))
        // Through a protocol whose requirement the deprecated initializer satisfies, so
        // this file compiles without a deprecation warning.
        let former = formerDownload(DownloadOperation.self, TestRequest("/file"), folder.appendingPathComponent("old.bin"), host)
        for operation in [current, former] {
            XCTAssertTrue(operation.configuration === host)
            let done = expectation(description: "download")
            operation.completion = { _ in done.fulfill() }
            NetworkQueue().addOperation(operation)
            wait(for: [done], timeout: 10)
            XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(operation.result).get()), resource.body)
        }
        XCTAssertEqual(server.requests(path: "/file").count, 2)
    }

    func testExistingDestinationCanFailOrBeReplaced() throws {
        let resource = RangeResource(size: 1000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let destination = folder.appendingPathComponent("exists.bin")
        try Data("old".utf8).write(to: destination)
        let (_, refused) = download("/file", to: "exists.bin", options: DownloadOptions(existing: .fail))
        guard case .failure(let error)? = refused else { return XCTFail("must fail") }
        XCTAssertEqual(error.kind, .invalidRequest)
        XCTAssertEqual(try Data(contentsOf: destination), Data("old".utf8))
        XCTAssertEqual(server.requests.count, 0)
        let (_, replaced) = download("/file", to: "exists.bin")
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(replaced).get()), resource.body)
    }

    /// The options stay settable values (as in 0.3.0): a set value is kept as given (only
    /// the initializer raises a segment size to 64 KB), reaches only the options changed,
    /// and is the one the download follows.
    func testOptionsAreSettableValues() throws {
        var options = DownloadOptions()
        let original = options
        options.existing = .fail
        options.resumable = false
        options.segmentSize = 1000
        XCTAssertEqual(options.existing, .fail)
        XCTAssertFalse(options.resumable)
        XCTAssertEqual(options.segmentSize, 1000)
        options.segmentSize? += 24
        XCTAssertEqual(options.segmentSize, 1024)
        XCTAssertEqual(DownloadOptions(segmentSize: 1000).segmentSize, 64 * 1024)
        XCTAssertEqual(original.existing, .replace)
        XCTAssertTrue(original.resumable)
        XCTAssertEqual(original.segmentSize, 1 << 20)

        server.route("GET", "/file") { _ in .status(200, body: Data("new".utf8)) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let destination = folder.appendingPathComponent("kept.bin")
        try Data("old".utf8).write(to: destination)
        let (_, refused) = download("/file", to: "kept.bin", options: options)
        guard case .failure(let error)? = refused else { return XCTFail("must fail") }
        XCTAssertEqual(error.kind, .invalidRequest)
        XCTAssertEqual(try Data(contentsOf: destination), Data("old".utf8))
    }

    func testHTTPErrorAndTruncatedBodyFailAndKeepNoFile() {
        let (_, missing) = download("/status/404", to: "missing.bin")
        guard case .failure(let error)? = missing else { return XCTFail("must fail") }
        XCTAssertEqual(error.statusCode, 404)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("missing.bin").path))
        let (_, reset) = download("/reset", to: "reset.bin")
        guard case .failure(let resetError)? = reset else { return XCTFail("must fail") }
        XCTAssertEqual(resetError.kind, .transport)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("reset.bin").path))
    }

    func testCancelledWhileWaitingForADependencyReportsOnceAndSendsNothing() {
        let blocker = BlockOperation {}
        let op = DownloadOperation(request: TestRequest("/large/1000"), configuration: makeHost(), to: folder.appendingPathComponent("y.bin"))
        op.addDependency(blocker)
        let results = Collector<String>()
        op.completion = { results.append((try? $0.get()) == nil ? "failure" : "success") }
        queue.addOperation(op)
        op.cancel()
        queue.addOperation(blocker)
        waitUntilFinished(op)
        callbackQueue.sync {}
        RunLoop.current.run(until: Date().addingTimeInterval(0.05))
        callbackQueue.sync {}
        XCTAssertEqual(results.values, ["failure"])
        XCTAssertEqual(server.requests.count, 0)
    }

    func testQueuedDownloadsCancelledBehindABusyQueueEachReportOnce() {
        let busy = NetworkQueue(maxConcurrentOperationCount: 1)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        busy.addOperation(BlockOperation {
            started.signal()
            release.wait()
        })
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        let results = Collector<Int>()
        let downloads = (0..<20).map { index in
            let op = DownloadOperation(request: TestRequest("/large/1000"), configuration: makeHost(), to: folder.appendingPathComponent("q\(index).bin"))
            op.completion = { result in if (try? result.get()) == nil { results.append(index) } }
            return op
        }
        downloads.forEach(busy.addOperation)
        busy.cancelAllOperations()
        release.signal()
        busy.waitUntilAllOperationsAreFinished()
        let deadline = Date().addingTimeInterval(10)
        while results.count < downloads.count, Date() < deadline { callbackQueue.sync {}; Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(results.values.sorted(), Array(0..<20), "every cancelled download calls back once")
        XCTAssertEqual(server.requests.count, 0)
    }

    func testCancelledBeforeStartReportsOnce() {
        let op = DownloadOperation(request: TestRequest("/large/1000"), configuration: makeHost(), to: folder.appendingPathComponent("x.bin"))
        let results = Collector<Bool>()
        op.completion = { results.append((try? $0.get()) == nil) }
        op.cancel()
        queue.addOperation(op)
        waitUntilFinished(op)
        callbackQueue.sync {}
        RunLoop.current.run(until: Date().addingTimeInterval(0.05))
        XCTAssertEqual(results.values, [true])
        XCTAssertEqual(server.requests.count, 0)
    }
}

/// The 0.2.0 initializer of `DownloadOperation`, called through this protocol so that the
/// test of it compiles without a deprecation warning.
protocol FormerDownloadInitializer {
    init(request: any BaseAPIRequest, to destination: URL, options: DownloadOptions, configuration: HostConfiguration)
}

extension DownloadOperation: FormerDownloadInitializer {}

private func formerDownload<Operation: FormerDownloadInitializer>(
    _ type: Operation.Type, _ request: any BaseAPIRequest, _ destination: URL, _ host: HostConfiguration
) -> Operation {
    Operation(request: request, to: destination, options: DownloadOptions(), configuration: host)
}
