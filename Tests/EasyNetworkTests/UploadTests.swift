@testable import EasyNetwork
@testable import EasyNetworkUploads
import EasyNetworkTesting
import Foundation
import XCTest

/// One part of a multipart body as the server saw it.
struct ReceivedPart: Equatable {
    var headers: [String: String]
    var body: Data
}

/// Splits a multipart/form-data body, as a server would.
func parseMultipart(_ body: Data, contentType: String?) -> [ReceivedPart]? {
    guard let boundary = contentType?.components(separatedBy: "boundary=").last else { return nil }
    let delimiter = Data("--\(boundary)".utf8)
    var parts: [ReceivedPart] = []
    var cursor = body.startIndex
    guard let first = body.range(of: delimiter, in: cursor..<body.endIndex) else { return nil }
    cursor = first.upperBound
    while true {
        if body[cursor...].starts(with: Data("--".utf8)) { return parts }
        cursor += 2  // CRLF after the delimiter
        guard let next = body.range(of: Data("\r\n".utf8) + delimiter, in: cursor..<body.endIndex),
              let headerEnd = body.range(of: Data("\r\n\r\n".utf8), in: cursor..<next.lowerBound)
        else { return nil }
        var headers: [String: String] = [:]
        for line in String(decoding: body[cursor..<headerEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n") {
            let pieces = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pieces.count == 2 { headers[pieces[0].lowercased()] = pieces[1] }
        }
        parts.append(ReceivedPart(headers: headers, body: Data(body[headerEnd.upperBound..<next.lowerBound])))
        cursor = next.upperBound
    }
}

struct UploadRequest: BaseAPIRequest {
    let form: MultipartFormData
    var api: String { "/upload" }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { ["album": "summer", "tags": ["a", "b"]] }
    var headers: [String: String]? { nil }
    var multipartBody: MultipartFormData? { form }
}

/// What the upload of the *Requests, parameters and results* article answers with.
struct Photo: Decodable, Equatable {
    let caption: String
    let fileName: String
    let bytes: Int
}

/// Declared as the *Requests, parameters and results* article shows it: `multipartBody` is computed, so
/// every read makes a new form with a new random boundary.
struct UploadPhoto: APIRequest {
    typealias Response = Photo
    let file: URL
    var api: String { "/photos" }
    var method: NetworkService.Method { .post }
    var params: [String: Any]? { ["caption": "Holiday"] }          // become text fields
    var multipartBody: MultipartFormData? {
        var form = MultipartFormData()
        form.append(fileAt: file, name: "photo")                    // filename and MIME type from the URL
        return form
    }
}

/// A computed multipart body that counts how often it is read.
struct CountingUpload: BaseAPIRequest {
    let reads: Collector<Int>
    var api: String { "/upload" }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { ["album": "summer"] }
    var headers: [String: String]? { nil }
    var multipartBody: MultipartFormData? {
        reads.append(1)
        var form = MultipartFormData()
        form.append("x", name: "field")
        return form
    }
}

final class UploadTests: ServerTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("easynetwork-uploads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    private func leftoverTemporaryFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)) ?? [])
            .filter { $0.hasPrefix(MultipartBodyWriter.namePrefix) }
    }

    private func upload(_ form: MultipartFormData, progress: Collector<Double>? = nil, cancelAfter: TimeInterval? = nil) -> RequestOperation<Any?> {
        let op = RequestOperation(request: UploadRequest(form: form), configuration: makeHost(), responseDecoder: .json)
        op.onUploadProgress = { progress?.append($0.fractionCompleted) }
        let done = expectation(description: "upload")
        op.completion = { _ in done.fulfill() }
        NetworkQueue().addOperation(op)
        if let cancelAfter {
            DispatchQueue.global().asyncAfter(deadline: .now() + cancelAfter) { op.cancel() }
        }
        wait(for: [done], timeout: 30)
        return op
    }

    func testMultipartFieldsAndFilesArriveByteForByte() throws {
        server.route("POST", "/upload") { _ in .json(#"{"stored": true}"#) }
        let photo = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let photoURL = folder.appendingPathComponent("beach.JPG")
        try photo.write(to: photoURL)
        let notes = Data("line1\r\n--not-a-boundary\r\nline3".utf8)
        var form = MultipartFormData()
        form.append("Holiday \"2026\"\r\nsecond line", name: "title")
        form.append(fileAt: photoURL, name: "photo")
        form.append(notes, name: "notes", fileName: "my \"notes\".txt")
        form.append(Data([0, 1, 2, 255]), name: "raw", fileName: "blob", mimeType: "application/x-custom")
        let op = upload(form)
        XCTAssertNoThrow(try op.result?.get())

        let recorded = try XCTUnwrap(server.requests(path: "/upload").first)
        let parts = try XCTUnwrap(parseMultipart(recorded.body, contentType: recorded.header("Content-Type")))
        XCTAssertEqual(recorded.header("Content-Type"), form.contentType)
        XCTAssertEqual(parts.count, 7)
        XCTAssertEqual(parts[0].headers["content-disposition"], #"form-data; name="album""#)
        XCTAssertEqual(parts[0].body, Data("summer".utf8))
        XCTAssertEqual(parts[1].headers["content-disposition"], #"form-data; name="tags[]""#)
        XCTAssertEqual(parts[3].body, Data("Holiday \"2026\"\r\nsecond line".utf8))
        XCTAssertEqual(parts[4].headers["content-disposition"], #"form-data; name="photo"; filename="beach.JPG""#)
        XCTAssertEqual(parts[4].headers["content-type"], "image/jpeg")
        XCTAssertEqual(parts[4].body, photo)
        XCTAssertEqual(parts[5].headers["content-disposition"], #"form-data; name="notes"; filename="my %22notes%22.txt""#)
        XCTAssertEqual(parts[5].headers["content-type"], "text/plain")
        XCTAssertEqual(parts[5].body, notes)
        XCTAssertEqual(parts[6].headers["content-type"], "application/x-custom")
        XCTAssertEqual(parts[6].body, Data([0, 1, 2, 255]))
        XCTAssertEqual(op.metrics?.bytesSent, recorded.body.count)
        XCTAssertEqual(leftoverTemporaryFiles(), [], "the temporary body file is removed")
    }

    func testUploadProgressIsMonotonicAndComplete() throws {
        server.route("POST", "/upload") { _ in .json("{}") }
        let big = folder.appendingPathComponent("big.bin")
        try Data(count: 8_000_000).write(to: big)
        var form = MultipartFormData()
        form.append(fileAt: big, name: "file")
        let fractions = Collector<Double>()
        let op = upload(form, progress: fractions)
        XCTAssertNoThrow(try op.result?.get())
        XCTAssertFalse(fractions.values.isEmpty)
        XCTAssertEqual(fractions.values, fractions.values.sorted())
        XCTAssertEqual(fractions.values.last, 1)
        XCTAssertEqual(op.uploadProgress.completedUnitCount, op.uploadProgress.totalUnitCount)
    }

    /// Bodies on both sides of Linux's in-memory limit (see UploadBody: from memory up
    /// to 8 MiB, streamed above) arrive whole on the delegate-driven and the
    /// completion-handler path, framed by exactly one of Content-Length and chunked,
    /// with progress ending at 1.
    func testBodiesAboveAndBelowTheInMemoryLimitArriveWholeWithOneFraming() throws {
        server.route("POST", "/upload") { request in .json(object: ["received": request.body.count]) }
        for size in [1_000_000, 9_000_000] {
            let file = folder.appendingPathComponent("body-\(size).bin")
            try Data(repeating: 0x5A, count: size).write(to: file)
            var form = MultipartFormData()
            form.append(fileAt: file, name: "file")
            let fractions = Collector<Double>()
            let op = upload(form, progress: fractions)
            XCTAssertNoThrow(try op.result?.get(), "\(size) bytes with progress")
            XCTAssertEqual(fractions.values.last, 1, "\(size) bytes")
            XCTAssertEqual(fractions.values, fractions.values.sorted(), "\(size) bytes")
            XCTAssertNoThrow(try send(UploadRequest(form: form)).get(), "\(size) bytes without progress")

            let recorded = server.requests(path: "/upload")
            XCTAssertEqual(recorded.count, 2)
            for request in recorded {
                let parts = try XCTUnwrap(parseMultipart(request.body, contentType: request.header("Content-Type")))
                XCTAssertEqual(parts.last?.body, Data(repeating: 0x5A, count: size), "\(size) bytes arrive whole")
                let length = request.header("Content-Length")
                let chunked = request.header("Transfer-Encoding")?.lowercased() == "chunked"
                XCTAssertTrue(chunked ? length == nil : length == String(request.body.count),
                              "\(size) bytes: one framing, not \(length ?? "no length") with chunked \(chunked)")
                #if canImport(FoundationNetworking)
                XCTAssertEqual(chunked, size > 8 << 20, "on Linux only a body over 8 MiB is streamed")
                #endif
            }
            server.resetRecords()
        }
        XCTAssertEqual(leftoverTemporaryFiles(), [])
    }

    func testTemporaryFileIsRemovedOnFailureAndCancel() throws {
        server.route("POST", "/upload") { _ in .delayed(2, .status(500)) }
        var form = MultipartFormData()
        form.append(Data(count: 100_000), name: "file", fileName: "f.bin")
        let cancelled = upload(form, cancelAfter: 0.2)
        if case .failure(let error)? = cancelled.result { XCTAssertTrue(error.isCancelled) } else { XCTFail("must be cancelled") }
        XCTAssertEqual(leftoverTemporaryFiles(), [])
        server.route("POST", "/upload") { _ in .status(500) }
        let failed = upload(form)
        if case .failure(let error)? = failed.result { XCTAssertEqual(error.statusCode, 500) } else { XCTFail("must fail") }
        XCTAssertEqual(leftoverTemporaryFiles(), [])
    }

    func testMissingFileIsAnEncodingErrorAndNothingIsSent() {
        var form = MultipartFormData()
        form.append(fileAt: folder.appendingPathComponent("nope.png"), name: "file")
        let op = upload(form)
        if case .failure(let error)? = op.result { XCTAssertEqual(error.kind, .encoding) } else { XCTFail("must fail") }
        XCTAssertEqual(server.requests.count, 0)
        XCTAssertEqual(leftoverTemporaryFiles(), [])
    }

    /// A form no part of which `EasyNetworkUploads` added has no writer: the request is
    /// refused with a typed error naming the product, before anything is sent.
    func testAFormWithoutPartsFromEasyNetworkUploadsIsRefusedNamingTheProduct() {
        server.route("POST", "/upload") { _ in .status(200) }
        let op = upload(MultipartFormData())
        guard case .failure(let error)? = op.result else { return XCTFail("must fail: \(String(describing: op.result))") }
        XCTAssertEqual(error.kind, .invalidRequest)
        XCTAssertTrue(error.message?.contains("import EasyNetworkUploads") == true, error.message ?? "no message")
        XCTAssertEqual(server.requests.count, 0)
        XCTAssertEqual(leftoverTemporaryFiles(), [])
    }

    /// The server splits the body by the boundary its Content-Type names, as any
    /// server does, and answers with what it found.
    private func routePhotos() {
        server.route("POST", "/photos") { request in
            guard let parts = parseMultipart(request.body, contentType: request.header("Content-Type")),
                  let caption = parts.first(where: { $0.headers["content-disposition"] == #"form-data; name="caption""# }),
                  let photo = parts.first(where: { $0.headers["content-disposition"]?.hasPrefix(#"form-data; name="photo""#) == true })
            else { return .json(object: ["error": "no parts for the boundary in the Content-Type"], status: 400) }
            let fileName = photo.headers["content-disposition"]?.components(separatedBy: #"filename=""#).last?.dropLast() ?? ""
            return .json(object: ["caption": String(decoding: caption.body, as: UTF8.self), "fileName": String(fileName), "bytes": photo.body.count])
        }
    }

    func testReadmeUploadWithComputedMultipartBodyReachesTheServerParsed() throws {
        routePhotos()
        let url = folder.appendingPathComponent("beach.jpg")
        try Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: url)
        // As the article shows it, with progress (delegate-driven) ...
        let upload = RequestOperation(request: UploadPhoto(file: url), configuration: makeHost(), decoding: Photo.self)
        upload.onUploadProgress = { _ in }
        let done = expectation(description: "upload")
        upload.completion = { _ in done.fulfill() }
        NetworkQueue().addOperation(upload)
        wait(for: [done], timeout: 30)
        XCTAssertEqual(try upload.result?.get(), Photo(caption: "Holiday", fileName: "beach.jpg", bytes: 200_000))

        // ... and without (the session's completion handler).
        let plain = try XCTUnwrap(try send(UploadPhoto(file: url)).get() as? [String: Any])
        XCTAssertEqual(plain["caption"] as? String, "Holiday")
        XCTAssertEqual(plain["bytes"] as? Int, 200_000)
        let recorded = server.requests(path: "/photos")
        XCTAssertEqual(recorded.count, 2)
        for request in recorded {
            let boundary = try XCTUnwrap(request.header("Content-Type")?.components(separatedBy: "boundary=").last)
            XCTAssertTrue(request.body.starts(with: Data("--\(boundary)\r\n".utf8)), "the body uses the boundary its header names")
        }
        XCTAssertEqual(leftoverTemporaryFiles(), [])
    }

    func testComputedMultipartBodyIsReadOncePerRequest() {
        server.route("POST", "/upload") { _ in .json("{}") }
        let reads = Collector<Int>()
        XCTAssertNoThrow(try send(CountingUpload(reads: reads)).get())
        XCTAssertEqual(reads.count, 1, "multipartBody is read once; header and body come from that one value")
    }

    func testMimeTypesFromExtensions() {
        XCTAssertEqual(MultipartFormData.mimeType(forPathExtension: "PNG"), "image/png")
        XCTAssertEqual(MultipartFormData.mimeType(forPathExtension: "json"), "application/json")
        XCTAssertEqual(MultipartFormData.mimeType(forPathExtension: "weird"), "application/octet-stream")
    }

    func testEveryBuiltInMimeType() {
        let expected = [
            "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
            "heic": "image/heic", "svg": "image/svg+xml", "pdf": "application/pdf", "json": "application/json",
            "xml": "application/xml", "zip": "application/zip", "gz": "application/gzip", "txt": "text/plain",
            "log": "text/plain", "csv": "text/csv", "html": "text/html", "htm": "text/html", "mp4": "video/mp4",
            "mov": "video/quicktime", "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav",
            "": "application/octet-stream", "image/jpeg": "application/octet-stream", "JPG": "image/jpeg", "Wav": "audio/wav",
        ]
        for (pathExtension, type) in expected {
            XCTAssertEqual(MultipartFormData.mimeType(forPathExtension: pathExtension), type, pathExtension)
        }
    }
}
