import EasyNetwork
@testable import EasyNetworkDownloads
import EasyNetworkTesting
import Foundation
import XCTest

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
        let firstAttemptRequests = server.requests(path: "/file").count
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
        let resumeRequest = try XCTUnwrap(server.requests(path: "/file").dropFirst(firstAttemptRequests).first)
        XCTAssertTrue(resumeRequest.header("Range")?.hasPrefix("bytes=\(kept)-") ?? false, "kept \(kept): " + server.requests(path: "/file").map { $0.header("Range") ?? "-" }.joined(separator: " "))
        XCTAssertEqual(resumeRequest.header("If-Range"), "\"v1\"")
        let data = try Data(contentsOf: url)
        XCTAssertEqual(data.count, resource.body.count)
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

    func testLargeBodyComesInRangesWithoutAGap() throws {
        let resource = RangeResource(size: 1_000_000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        let destination = folder.appendingPathComponent("ranges.bin")
        let op = DownloadOperation(request: TestRequest("/file"), to: destination, options: DownloadOptions(segmentSize: 300_000), configuration: makeHost())
        let done = expectation(description: "download")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(op.result).get()), resource.body)
        assertRangesWithoutAGap(server.requests(path: "/file"), segment: 300_000, total: 1_000_000, validator: "\"v1\"")
    }

    func testBuiltInLargeRouteServesRanges() throws {
        let destination = folder.appendingPathComponent("large.bin")
        let op = DownloadOperation(request: TestRequest("/large/700000"), to: destination, options: DownloadOptions(segmentSize: 256 * 1024), configuration: makeHost())
        let done = expectation(description: "download")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 10)
        let data = try Data(contentsOf: try XCTUnwrap(op.result).get())
        XCTAssertEqual(data.count, 700_000)
        XCTAssertTrue(data.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) })
        assertRangesWithoutAGap(server.requests(path: "/large/700000"), segment: 256 * 1024, total: 700_000, validator: "\"large-700000\"")
    }

    func testASlowRangeDoublesTheNextOne() throws {
        // A range that takes over 0.2 s doubles the next, so how many requests a download
        // takes depends on timing: under TSan in the full suite /large/700000 came in 2
        // ranges (0-262143, 262144-786431), not 3. A slow first range pins it down.
        let resource = RangeResource(size: 700_000)
        server.route("GET", "/file") { request in
            let reply = resource.reply(to: request)
            return request.header("Range") == "bytes=0-262143" ? .delayed(0.3, reply) : reply
        }
        let (_, result) = download("/file", to: "slow.bin", options: DownloadOptions(segmentSize: 256 * 1024))
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(result).get()), resource.body)
        XCTAssertEqual(server.requests(path: "/file").map { $0.header("Range") ?? "-" }, ["bytes=0-262143", "bytes=262144-786431"])
        assertRangesWithoutAGap(server.requests(path: "/file"), segment: 256 * 1024, total: 700_000, validator: "\"v1\"")
    }

    /// Checks that `requests` fetched `total` bytes in ranges without a gap or an overlap:
    /// the first `bytes=0-(segment-1)` without `If-Range`, each later one from where the
    /// last ended with `If-Range: validator`, each `segment` to 32 x `segment` long (a slow
    /// range doubles the next, a fast one halves it, so the count depends on timing), all
    /// with `Accept-Encoding: identity`, the last reaching the end.
    private func assertRangesWithoutAGap(_ requests: [RecordedRequest], segment: Int, total: Int, validator: String, file: StaticString = #filePath, line: UInt = #line) {
        let seen = requests.map { "\($0.header("Range") ?? "-") \($0.header("If-Range") ?? "-")" }
        XCTAssertEqual(requests.first?.header("Range"), "bytes=0-\(segment - 1)", "\(seen)", file: file, line: line)
        var next = 0
        for (index, request) in requests.enumerated() {
            guard let bounds = range(of: request), let end = bounds.end else {
                return XCTFail("not a closed range: \(seen)", file: file, line: line)
            }
            XCTAssertEqual(bounds.start, next, "a gap or an overlap: \(seen)", file: file, line: line)
            XCTAssertLessThan(bounds.start, total, "a range past the end: \(seen)", file: file, line: line)
            XCTAssertTrue((segment...(32 * segment)).contains(end - bounds.start + 1), "a range of another size: \(seen)", file: file, line: line)
            XCTAssertEqual(request.header("If-Range"), index == 0 ? nil : validator, "\(seen)", file: file, line: line)
            XCTAssertEqual(request.header("Accept-Encoding"), "identity", "\(seen)", file: file, line: line)
            next = end + 1
        }
        XCTAssertGreaterThanOrEqual(next, total, "the ranges stop short of the end: \(seen)", file: file, line: line)
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
    // MARK: Servers that refuse ranges, empty files, range headers

    /// The ranges a recorded request asked for, as (start, end); `nil` without a `Range`.
    private func range(of request: RecordedRequest) -> (start: Int, end: Int?)? {
        guard let value = request.header("Range"), value.hasPrefix("bytes=") else { return nil }
        let bounds = value.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard let start = Int(bounds.first ?? "") else { return nil }
        return (start, bounds.count > 1 ? Int(bounds[1]) : nil)
    }

    func testEmptyFileBecomesAnEmptyFile() throws {
        // What servers answer for an empty file: any range is unsatisfiable.
        server.route("GET", "/empty") { request in
            if request.header("Range") != nil {
                return .status(416, headers: ["Content-Range": "bytes */0", "Accept-Ranges": "bytes", "ETag": "\"e\""])
            }
            return .data(Data(), headers: ["Accept-Ranges": "bytes", "ETag": "\"e\""])
        }
        let fractions = Collector<Double>()
        let (_, result) = download("/empty", to: "empty.bin", progress: fractions)
        let url = try XCTUnwrap(result).get()
        XCTAssertEqual(try Data(contentsOf: url), Data())
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path + ".partial"))
        XCTAssertEqual(fractions.values.last, 1, "progress ends at 1.0 for an empty file too")
    }

    func testServerThatAnswersEveryRangeWith416StillDownloads() throws {
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        server.route("GET", "/norange") { request in
            if request.header("Range") != nil {
                return .status(416, headers: ["Content-Range": "bytes */\(body.count)"])
            }
            return .data(body)
        }
        let (_, result) = download("/norange", to: "norange.bin")
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(result).get()), body)
        XCTAssertNil(server.requests(path: "/norange").last?.header("Range"), "after a 416 it asks for the whole body")
    }

    func testServerThatAdvertisesRangesButRefusesThemStillDownloads() throws {
        let body = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        server.route("GET", "/liar") { request in
            if request.header("Range") != nil {
                return .status(416, headers: ["Content-Range": "bytes */\(body.count)"])
            }
            return .data(body, headers: ["Accept-Ranges": "bytes", "ETag": "\"l\""])
        }
        let (_, result) = download("/liar", to: "liar.bin", options: DownloadOptions(segmentSize: 64 * 1024))
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(result).get()), body)
        XCTAssertNil(server.requests(path: "/liar").last?.header("Range"), "after a 416 it asks for the whole body")
    }

    func testServerWithoutAValidatorIsNotSplicedFromRanges() throws {
        // Ranges honoured, but no ETag or Last-Modified: a later range could not carry
        // If-Range, so after the first range the whole body comes in one plain GET.
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 11) })
        server.route("GET", "/plain") { request in
            if let range = request.header("Range"), range.hasPrefix("bytes="),
               let start = Int(range.dropFirst(6).split(separator: "-").first ?? ""), start < body.count {
                let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
                let end = min(bounds.count > 1 ? Int(bounds[1]) ?? body.count - 1 : body.count - 1, body.count - 1)
                return .data(body.subdata(in: start..<(end + 1)), status: 206, headers: ["Content-Range": "bytes \(start)-\(end)/\(body.count)"])
            }
            return .data(body)
        }
        let (_, result) = download("/plain", to: "plain.bin", options: DownloadOptions(segmentSize: 64 * 1024))
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(result).get()), body)
        let requests = server.requests(path: "/plain")
        XCTAssertTrue(requests.allSatisfy { $0.header("If-Range") == nil })
        XCTAssertEqual(requests.map { $0.header("Range") ?? "-" }, ["bytes=0-65535", "-"], "no range past the first without If-Range")
    }

    func testRangeOfUnknownTotalIsNotTakenForTheWholeFile() throws {
        // `Content-Range: bytes 0-65535/*`: the length is unknown, so one range is not the file.
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 17) })
        server.route("GET", "/unknown") { request in
            if let range = request.header("Range"), range.hasPrefix("bytes="),
               let start = Int(range.dropFirst(6).split(separator: "-").first ?? ""), start < body.count {
                let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
                let end = min(bounds.count > 1 ? Int(bounds[1]) ?? body.count - 1 : body.count - 1, body.count - 1)
                return .data(body.subdata(in: start..<(end + 1)), status: 206, headers: ["Content-Range": "bytes \(start)-\(end)/*", "ETag": "\"u\""])
            }
            return .data(body, headers: ["ETag": "\"u\""])
        }
        let (_, result) = download("/unknown", to: "unknown.bin", options: DownloadOptions(segmentSize: 64 * 1024))
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(result).get()), body)
    }

    func testRangeRequestsAskForIdentityEncodingAndCarryIfRange() throws {
        let resource = RangeResource(size: 2_000_000)
        resource.slow = true
        server.route("GET", "/file") { resource.reply(to: $0) }
        _ = download("/file", to: "r.bin", cancelWhen: { self.size($0) >= 500_000 })
        resource.slow = false
        let (_, result) = download("/file", to: "r.bin")
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(result).get()), resource.body)
        let ranged = server.requests(path: "/file").filter { $0.header("Range") != nil }
        XCTAssertTrue(ranged.contains { ($0.header("Range") ?? "").hasPrefix("bytes=0-") == false }, "the second download resumed with a range")
        for request in ranged {
            XCTAssertEqual(request.header("Accept-Encoding"), "identity", request.header("Range") ?? "")
            if request.header("Range")?.hasPrefix("bytes=0-") == false {
                XCTAssertEqual(request.header("If-Range"), "\"v1\"", request.header("Range") ?? "")
            }
        }
    }

    // MARK: async run

    func testAsyncRunReturnsTheFileAndThrowsTheDownloadsError() async throws {
        let resource = RangeResource(size: 10_000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        let host = makeHost()
        let good = DownloadOperation(request: TestRequest("/file"), to: folder.appendingPathComponent("good.bin"), configuration: host)
        let url: URL = try await queue.run(good)
        XCTAssertEqual(try Data(contentsOf: url), resource.body)

        let missing = DownloadOperation(request: TestRequest("/status/404"), to: folder.appendingPathComponent("missing.bin"), configuration: host)
        do {
            try await queue.run(missing)
            XCTFail("a 404 must throw")
        } catch let error as NetworkError {
            XCTAssertEqual(error.statusCode, 404)
        }

        // The same download held as a plain Operation goes through the generic run.
        let erased: Operation = DownloadOperation(request: TestRequest("/status/404"), to: folder.appendingPathComponent("erased.bin"), configuration: host)
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
        let op = DownloadOperation(request: TestRequest("/file"), to: folder.appendingPathComponent("cancel.bin"), configuration: makeHost())
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
        let op = DownloadOperation(request: TestRequest("/file"), to: folder.appendingPathComponent("kept.bin"), configuration: makeHost())
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
        let op = DownloadOperation(request: TestRequest("/file"), to: folder.appendingPathComponent("never.bin"), configuration: makeHost())
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

    /// The metadata of a partial download as the Codable `PartialDownload.Validator` of
    /// earlier versions wrote it with `JSONEncoder`.
    private struct EarlierValidator: Encodable {
        var url: String
        var etag: String?
        var lastModified: String?
        var totalLength: Int64?
    }

    func testPartialDownloadWrittenByAnEarlierVersionIsResumed() throws {
        let resource = RangeResource(size: 300_000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        let destination = folder.appendingPathComponent("earlier.bin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try resource.body.prefix(100_000).write(to: folder.appendingPathComponent("earlier.bin.partial"))
        let metadata = EarlierValidator(url: server.baseURL.absoluteString + "/file", etag: "\"v1\"", totalLength: 300_000)
        try JSONEncoder().encode(metadata).write(to: folder.appendingPathComponent("earlier.bin.partial.json"))

        let (op, result) = download("/file", to: "earlier.bin", options: DownloadOptions(segmentSize: nil))
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(result).get()), resource.body)
        XCTAssertEqual(op.resumedFromOffset, 100_000)
        let request = try XCTUnwrap(server.requests(path: "/file").first)
        XCTAssertEqual(request.header("Range"), "bytes=100000-")
        XCTAssertEqual(request.header("If-Range"), "\"v1\"")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + ".partial.json"))
    }

    func testPartialDownloadMetadataIsJSONAnEarlierVersionCanRead() throws {
        let destination = folder.appendingPathComponent("meta.bin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let partial = PartialDownload(destination: destination)
        partial.save(url: "http://example.invalid/a", etag: "W/\"weak\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT", totalLength: 5_000_000_000)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: partial.metadataURL)) as? [String: Any])
        XCTAssertEqual(object["url"] as? String, "http://example.invalid/a")
        XCTAssertEqual(object["etag"] as? String, "W/\"weak\"")
        XCTAssertEqual(object["lastModified"] as? String, "Sat, 21 Nov 2026 10:00:00 GMT")
        XCTAssertEqual((object["totalLength"] as? NSNumber)?.int64Value, 5_000_000_000)
        try Data(count: 10).write(to: partial.dataURL)
        // A weak ETag cannot guard a range: the Last-Modified date does.
        let point = try XCTUnwrap(partial.resumePoint(for: try XCTUnwrap(URL(string: "http://example.invalid/a"))))
        XCTAssertEqual(point.offset, 10)
        XCTAssertEqual(point.ifRange, "Sat, 21 Nov 2026 10:00:00 GMT")
        XCTAssertNil(partial.resumePoint(for: try XCTUnwrap(URL(string: "http://example.invalid/b"))), "another URL")
        partial.save(url: "http://example.invalid/a", etag: nil, lastModified: nil, totalLength: nil)
        XCTAssertNil(partial.resumePoint(for: try XCTUnwrap(URL(string: "http://example.invalid/a"))), "no validator")
        partial.save(url: "http://example.invalid/a", etag: "\"s\"", lastModified: nil, totalLength: 10)
        XCTAssertNil(partial.resumePoint(for: try XCTUnwrap(URL(string: "http://example.invalid/a"))), "all bytes are there")
        try Data("{".utf8).write(to: partial.metadataURL)
        XCTAssertNil(partial.resumePoint(for: try XCTUnwrap(URL(string: "http://example.invalid/a"))), "unreadable metadata")
    }

    func testContentRangeIsReadByteByByte() {
        XCTAssertEqual(DownloadTransfer.contentRange("bytes 100-199/1000").map { [$0.start, $0.end, $0.total ?? -1] }, [100, 199, 1000])
        XCTAssertEqual(DownloadTransfer.contentRange("bytes 0-65535/*").map { [$0.start, $0.end, $0.total ?? -1] }, [0, 65535, -1])
        XCTAssertEqual(DownloadTransfer.contentRange("bytes 5-9").map { [$0.start, $0.end, $0.total ?? -1] }, [5, 9, -1])
        XCTAssertEqual(DownloadTransfer.contentRange("bytes  7-8/9").map { [$0.start, $0.end, $0.total ?? -1] }, [7, 8, 9])
        XCTAssertEqual(DownloadTransfer.contentRange("bytes 9223372036854775806-9223372036854775806/9223372036854775807").map { $0.end }, 9_223_372_036_854_775_806)
        for malformed in [nil, "", "bytes", "bytes */1000", "bytes 5/9", "bytes -5/9", "bytes 5-/9", "bytes 1-2-3/9", "bytes 1x-2/9", "bytes 99999999999999999999-1/2"] {
            XCTAssertNil(DownloadTransfer.contentRange(malformed), malformed ?? "nil")
        }
    }
}
