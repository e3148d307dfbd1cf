import EasyNetwork
@testable import EasyNetworkDownloads
import EasyNetworkTesting
import Foundation
import XCTest

/// A download fetched in ranges without a gap, and servers that refuse ranges, serve an
/// empty file, name no validator or no total; `Content-Range` read byte by byte.
final class DownloadTransferTests: DownloadTestCase {
    func testLargeBodyComesInRangesWithoutAGap() throws {
        let resource = RangeResource(size: 1_000_000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        let destination = folder.appendingPathComponent("ranges.bin")
        let op = DownloadOperation(request: TestRequest("/file"), configuration: makeHost(), to: destination, options: DownloadOptions(segmentSize: 300_000))
        let done = expectation(description: "download")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(op.result).get()), resource.body)
        assertRangesWithoutAGap(server.requests(path: "/file"), segment: 300_000, total: 1_000_000, validator: "\"v1\"")
    }

    func testBuiltInLargeRouteServesRanges() throws {
        let destination = folder.appendingPathComponent("large.bin")
        let op = DownloadOperation(request: TestRequest("/large/700000"), configuration: makeHost(), to: destination, options: DownloadOptions(segmentSize: 256 * 1024))
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

    /// A segment size set through the setter, which keeps it as given, beyond any file
    /// (`Int.max`) or below one byte, neither traps nor sends a malformed range: the
    /// download reads it as 64 KB to 1 GB. The server sends at most 100,000 bytes per
    /// range, so each download asks for a range from past 0.
    func testOutOfRangeSegmentSizesNeitherTrapNorMalformARange() throws {
        let resource = RangeResource(size: 300_000)
        server.route("GET", "/capped") { request in
            let body = resource.body
            var headers = ["ETag": "\"v1\"", "Accept-Ranges": "bytes", "Content-Type": "application/octet-stream"]
            guard let range = request.header("Range"), range.hasPrefix("bytes="),
                  let start = Int(range.dropFirst(6).split(separator: "-").first ?? ""), start < body.count else {
                return .data(body, status: 200, headers: headers)
            }
            let end = min(start + 99_999, body.count - 1)
            headers["Content-Range"] = "bytes \(start)-\(end)/\(body.count)"
            return .data(body.subdata(in: start..<(end + 1)), status: 206, headers: headers)
        }
        for (index, size) in [Int.max, 0, -1].enumerated() {
            var options = DownloadOptions()
            options.segmentSize = size
            let (_, result) = download("/capped", to: "capped\(index).bin", options: options)
            XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(result).get()), resource.body, "segment size \(size)")
        }
        let ranges = server.requests(path: "/capped").map { $0.header("Range") ?? "-" }
        let wellFormed = ranges.filter { range in
            let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
            return range.hasPrefix("bytes=") && bounds.count == 2 && bounds.allSatisfy { Int($0).map { $0 >= 0 } ?? false }
                && Int(bounds[0]) ?? 0 <= Int(bounds[1]) ?? -1
        }
        XCTAssertEqual(wellFormed, ranges, "every range names a first and a last byte")
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
