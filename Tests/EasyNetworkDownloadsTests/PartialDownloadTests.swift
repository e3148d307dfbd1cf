import EasyNetwork
@testable import EasyNetworkDownloads
import EasyNetworkTesting
import Foundation
import XCTest

/// Resuming from the bytes on disk: a `Range` guarded by `If-Range`, a server that ignores
/// it or changed the file, and the `.partial.json` metadata earlier versions wrote.
final class PartialDownloadTests: DownloadTestCase {
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
        let metadataURL = DownloadTransfer.partialURL(destination, metadata: true)
        DownloadTransfer.saveMetadata(destination, url: "http://example.invalid/a", etag: "W/\"weak\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT", totalLength: 5_000_000_000)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: metadataURL)) as? [String: Any])
        XCTAssertEqual(object["url"] as? String, "http://example.invalid/a")
        XCTAssertEqual(object["etag"] as? String, "W/\"weak\"")
        XCTAssertEqual(object["lastModified"] as? String, "Sat, 21 Nov 2026 10:00:00 GMT")
        XCTAssertEqual((object["totalLength"] as? NSNumber)?.int64Value, 5_000_000_000)
        try Data(count: 10).write(to: DownloadTransfer.partialURL(destination, metadata: false))
        // A weak ETag cannot guard a range: the Last-Modified date does.
        let point = try XCTUnwrap(DownloadTransfer.resumePoint(destination, for: try XCTUnwrap(URL(string: "http://example.invalid/a"))))
        XCTAssertEqual(point.offset, 10)
        XCTAssertEqual(point.ifRange, "Sat, 21 Nov 2026 10:00:00 GMT")
        XCTAssertNil(DownloadTransfer.resumePoint(destination, for: try XCTUnwrap(URL(string: "http://example.invalid/b"))), "another URL")
        DownloadTransfer.saveMetadata(destination, url: "http://example.invalid/a", etag: nil, lastModified: nil, totalLength: nil)
        XCTAssertNil(DownloadTransfer.resumePoint(destination, for: try XCTUnwrap(URL(string: "http://example.invalid/a"))), "no validator")
        DownloadTransfer.saveMetadata(destination, url: "http://example.invalid/a", etag: "\"s\"", lastModified: nil, totalLength: 10)
        XCTAssertNil(DownloadTransfer.resumePoint(destination, for: try XCTUnwrap(URL(string: "http://example.invalid/a"))), "all bytes are there")
        try Data("{".utf8).write(to: metadataURL)
        XCTAssertNil(DownloadTransfer.resumePoint(destination, for: try XCTUnwrap(URL(string: "http://example.invalid/a"))), "unreadable metadata")
    }
}
