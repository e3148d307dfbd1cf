import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

/// A resource the test server serves with ETag and Range support.
final class RangeResource: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var body: Data
    private var etag = "\"v1\""
    var honoursRange = true
    var slow = false

    init(size: Int) {
        body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    func change() {
        lock.lock(); defer { lock.unlock() }
        body = Data(body.reversed())
        etag = "\"v2\""
    }

    func reply(to request: RecordedRequest) -> LoopbackReply {
        lock.lock(); defer { lock.unlock() }
        var headers = ["ETag": etag, "Accept-Ranges": "bytes"]
        if honoursRange, let range = request.header("Range"), range.hasPrefix("bytes="),
           request.header("If-Range").map({ $0 == etag }) ?? true,
           let start = Int(range.dropFirst(6).split(separator: "-").first ?? ""), start < body.count {
            headers["Content-Range"] = "bytes \(start)-\(body.count - 1)/\(body.count)"
            return .data(body.subdata(in: start..<body.count), status: 206, headers: headers)
        }
        if slow {
            let chunks = stride(from: 0, to: body.count, by: 32 * 1024).map { body.subdata(in: $0..<min($0 + 32 * 1024, body.count)) }
            return .chunked(chunks, headers: headers.merging(["Content-Type": "application/octet-stream"]) { $1 }, interval: 0.02)
        }
        return .data(body, headers: headers)
    }
}

final class DownloadTests: ServerTestCase {
    private var folder: URL!
    private let queue = NetworkQueue()

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("easynetwork-downloads-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    private func download(_ path: String, to name: String, options: DownloadOptions = DownloadOptions(), progress: Collector<Double>? = nil, cancelWhen: ((URL) -> Bool)? = nil) -> (DownloadOperation, Result<URL, NetworkError>?) {
        let destination = folder.appendingPathComponent(name)
        let op = DownloadOperation(request: TestRequest(path), to: destination, options: options, configuration: makeHost())
        let done = expectation(description: "download")
        op.onProgress = { progress?.append($0.fractionCompleted) }
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        if let cancelWhen {
            let partial = folder.appendingPathComponent(name + ".partial")
            let deadline = Date().addingTimeInterval(10)
            while !cancelWhen(partial) && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            op.cancel()
        }
        wait(for: [done], timeout: 20)
        return (op, op.result)
    }

    private func size(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

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

    func testCancelledAtFortyPercentThenResumedWithARangeRequest() throws {
        let resource = RangeResource(size: 4_000_000)
        resource.slow = true
        server.route("GET", "/file") { resource.reply(to: $0) }
        let (first, firstResult) = download("/file", to: "big.bin", cancelWhen: { self.size($0) >= 1_600_000 })
        guard case .failure(let error)? = firstResult else { return XCTFail("must be cancelled") }
        XCTAssertTrue(error.isCancelled)
        XCTAssertEqual(first.resumedFromOffset, 0)
        let kept = size(folder.appendingPathComponent("big.bin.partial"))
        XCTAssertGreaterThanOrEqual(kept, 1_600_000)
        XCTAssertLessThan(kept, 4_000_000)

        resource.slow = false
        let (second, secondResult) = download("/file", to: "big.bin")
        let url = try XCTUnwrap(secondResult).get()
        XCTAssertEqual(second.resumedFromOffset, Int64(kept))
        let resumeRequest = try XCTUnwrap(server.requests(path: "/file").last)
        XCTAssertEqual(resumeRequest.header("Range"), "bytes=\(kept)-")
        XCTAssertEqual(resumeRequest.header("If-Range"), "\"v1\"")
        let data = try Data(contentsOf: url)
        XCTAssertEqual(SHA256.hex(data), SHA256.hex(resource.body))
        XCTAssertEqual(data, resource.body)
    }

    func testServerThatIgnoresRangeStartsOverCleanly() throws {
        let resource = RangeResource(size: 2_000_000)
        resource.slow = true
        server.route("GET", "/file") { resource.reply(to: $0) }
        _ = download("/file", to: "f.bin", cancelWhen: { self.size($0) >= 500_000 })
        resource.slow = false
        resource.honoursRange = false
        let fractions = Collector<Double>()
        let (_, result) = download("/file", to: "f.bin", progress: fractions)
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(result).get()), resource.body)
        XCTAssertNotNil(server.requests(path: "/file").last?.header("Range"), "it asked")
        XCTAssertEqual(fractions.values, fractions.values.sorted(), "progress never goes back")
    }

    func testChangedResourceIsNotSplicedOntoOldBytes() throws {
        let resource = RangeResource(size: 2_000_000)
        resource.slow = true
        server.route("GET", "/file") { resource.reply(to: $0) }
        _ = download("/file", to: "c.bin", cancelWhen: { self.size($0) >= 500_000 })
        resource.slow = false
        resource.change()
        let (_, result) = download("/file", to: "c.bin")
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(result).get()), resource.body, "If-Range made the server send the new whole body")
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

    func testCancelledBeforeStartReportsOnce() {
        let op = DownloadOperation(request: TestRequest("/large/1000"), to: folder.appendingPathComponent("x.bin"), configuration: makeHost())
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
