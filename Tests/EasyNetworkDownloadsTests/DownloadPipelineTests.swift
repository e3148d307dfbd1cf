import EasyNetwork
import EasyNetworkRetry
import EasyNetworkEnvelopes
import EasyNetworkUploads
import EasyNetworkDownloads
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads run through the request pipeline: the attempt's clock (idle and total
/// timeouts), the interceptors' every step, and the request's metrics.
final class DownloadPipelineTests: DownloadTestCase {
    /// A download with its own total timeout.
    private struct BoundedRequest: BaseAPIRequest {
        var api: String
        var method: NetworkService.Method { .get }
        var query: NetworkService.QueryType { .path }
        var params: [String: Any]? { nil }
        var headers: [String: String]? { nil }
        var totalTimeout: TimeInterval?
    }

    /// Records every hook an interceptor hears, in order.
    private final class Recorder: RequestInterceptor {
        let events = Collector<String>()
        let outcomes = Collector<RequestOutcome>()

        func adapt(_ urlRequest: URLRequest, context: RequestContext) throws -> URLRequest {
            events.append("adapt")
            return urlRequest
        }

        func willSend(_ urlRequest: URLRequest, context: RequestContext) {
            events.append("willSend")
        }

        func didReceive(_ response: HTTPURLResponse?, data: Data, error: (any Error)?, context: RequestContext) {
            events.append("didReceive \(response?.statusCode ?? 0)\(error == nil ? "" : " error")")
        }

        func validate(_ response: NetworkResponse, context: RequestContext) throws {
            events.append("validate \(response.statusCode)")
        }

        func didFinish(_ outcome: RequestOutcome, context: RequestContext) {
            events.append("didFinish")
            outcomes.append(outcome)
        }
    }

    private func run(_ op: DownloadOperation) -> Result<URL, NetworkError>? {
        let done = expectation(description: "download")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 20)
        return op.result
    }

    func testAServerThatStallsMidBodyTimesOutByTheIdleTimeout() throws {
        // The built-in route sends 1,000 of 100,000 bytes, then nothing.
        let op = DownloadOperation(request: TestRequest("/stall-body", timeout: 0.5), configuration: makeHost(), to: folder.appendingPathComponent("stall.bin"))
        let started = Date()
        guard case .failure(let error)? = run(op) else { return XCTFail("a stalled download must fail") }
        XCTAssertTrue(error.isTimeout, "\(error)")
        XCTAssertEqual(error.urlError?.code, .timedOut, "\(error)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "the request's idle timeout, not URLSession's minute")
        XCTAssertEqual(op.metrics?.attempts, 1)
    }

    func testTheRequestsTotalTimeoutEndsADownloadButTheHostsDoesNot() throws {
        let resource = RangeResource(size: 600_000)
        resource.slow = true  // 32 KB every 20 ms: about 0.4 s
        server.route("GET", "/slow") { resource.reply(to: $0) }
        let host = makeHost()
        host.totalTimeout = 0.1
        let whole = DownloadOperation(request: BoundedRequest(api: "/slow"), configuration: host, to: folder.appendingPathComponent("whole.bin"))
        let url = try XCTUnwrap(run(whole)).get()
        XCTAssertEqual(try Data(contentsOf: url), resource.body, "the host's API-call budget does not end a download")

        let bounded = DownloadOperation(request: BoundedRequest(api: "/slow", totalTimeout: 0.1), configuration: makeHost(), to: folder.appendingPathComponent("bounded.bin"))
        guard case .failure(let error)? = run(bounded) else { return XCTFail("the request's own total timeout applies") }
        XCTAssertTrue(error.isTimeout, "\(error)")
    }

    func testInterceptorsHearEveryStepOfADownload() throws {
        let resource = RangeResource(size: 1000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        let host = makeHost()
        let recorder = Recorder()
        host.interceptors = [recorder]
        // The host's envelope is for API answers: a download's bytes are never read with it.
        host.envelope = ResponseEnvelope(success: .code("code", equals: ["0"]), payloadKey: "data")
        let op = DownloadOperation(request: TestRequest("/file"), configuration: host, to: folder.appendingPathComponent("file.bin"))
        let url = try XCTUnwrap(run(op)).get()
        XCTAssertEqual(try Data(contentsOf: url), resource.body)
        XCTAssertEqual(recorder.events.values, ["adapt", "willSend", "didReceive 206", "validate 206", "didFinish"])
        let outcome = try XCTUnwrap(recorder.outcomes.values.first)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.response?.statusCode, 206)
        XCTAssertEqual(outcome.metrics, op.metrics)
    }

    func testAFailedDownloadReachesTheInterceptorsWithItsError() throws {
        server.route("GET", "/missing") { _ in .status(404) }
        let host = makeHost()
        let recorder = Recorder()
        host.interceptors = [recorder]
        let reported = Collector<Int>()
        host.errorHandler = { _, error in reported.append(error.statusCode ?? 0) }
        let op = DownloadOperation(request: TestRequest("/missing"), configuration: host, to: folder.appendingPathComponent("missing.bin"))
        guard case .failure(let error)? = run(op) else { return XCTFail("a 404 must fail") }
        XCTAssertEqual(reported.values, [404], "the host's error handler hears a download's failure")
        XCTAssertEqual(error.kind, .unacceptableStatus, "the transfer's error passes unchanged")
        XCTAssertEqual(error.statusCode, 404)
        XCTAssertEqual(recorder.events.values, ["adapt", "willSend", "didReceive 404 error", "didFinish"])
        XCTAssertEqual(recorder.outcomes.values.first?.error?.statusCode, 404)
    }

    /// An interceptor that rejects every response it validates.
    private final class Rejecter: RequestInterceptor {
        func validate(_ response: NetworkResponse, context: RequestContext) throws {
            throw NetworkError(kind: .unacceptableStatus, message: "rejected by the interceptor")
        }
    }

    func testADownloadAnInterceptorRejectsFailsAndLeavesNoFileAtTheDestination() throws {
        let resource = RangeResource(size: 1000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        let host = makeHost()
        host.interceptors = [Rejecter()]
        host.retryPolicy = .none
        let destination = folder.appendingPathComponent("rejected.bin")
        let op = DownloadOperation(request: TestRequest("/file"), configuration: host, to: destination)
        guard case .failure(let error)? = run(op) else { return XCTFail("a rejected download must fail") }
        XCTAssertEqual(error.message, "rejected by the interceptor")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path), "a failed download leaves no file at its destination")
    }

    func testARejectedDownloadLeavesTheFileAlreadyAtItsDestinationAlone() throws {
        // The file moves into place only once the exchange accepted the download, so a
        // rejected one neither replaces nor removes what was there.
        let resource = RangeResource(size: 1000)
        server.route("GET", "/file") { resource.reply(to: $0) }
        let host = makeHost()
        host.interceptors = [Rejecter()]
        host.retryPolicy = .none
        let destination = folder.appendingPathComponent("kept.bin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let earlier = Data("the earlier file".utf8)
        try earlier.write(to: destination)
        let op = DownloadOperation(request: TestRequest("/file"), configuration: host, to: destination)
        guard case .failure? = run(op) else { return XCTFail("a rejected download must fail") }
        XCTAssertEqual(try Data(contentsOf: destination), earlier)
    }

    func testMetricsCountAttemptsAndTheBytesWritten() throws {
        let total = 300_000, cut = 100_000
        let modified = "Tue, 03 Nov 2026 10:00:00 GMT"
        let body = Data((0..<total).map { UInt8($0 % 251) })  // what `.truncatedBody` sends
        server.route("GET", "/asset") { request in
            let headers = ["Last-Modified": modified, "Accept-Ranges": "bytes"]
            if let range = request.header("Range"), range.hasPrefix("bytes=\(cut)-"), request.header("If-Range") == modified {
                return .data(body.subdata(in: cut..<total), status: 206, headers: headers.merging(["Content-Range": "bytes \(cut)-\(total - 1)/\(total)"]) { $1 })
            }
            return .truncatedBody(declaredLength: total, sentBytes: cut, headers: headers)
        }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(baseDelay: 0.05)
        let op = DownloadOperation(request: TestRequest("/asset"), configuration: host, to: folder.appendingPathComponent("asset.bin"))
        let url = try XCTUnwrap(run(op)).get()
        XCTAssertEqual(try Data(contentsOf: url), body)
        let metrics = try XCTUnwrap(op.metrics)
        XCTAssertEqual(metrics.attempts, 2)
        XCTAssertEqual(metrics.bytesReceived, total, "the bytes written: the cut attempt's and the resumed rest")
        XCTAssertEqual(metrics.bytesSent, 0)
        XCTAssertNotNil(metrics.firstByteAt)
        XCTAssertLessThanOrEqual(metrics.startedAt, metrics.endedAt)
    }

    /// A download's request with a multipart form.
    private struct FormDownload: BaseAPIRequest {
        var api: String { "/echo" }
        var method: NetworkService.Method { .post }
        var query: NetworkService.QueryType { .json }
        var params: [String: Any]? { nil }
        var headers: [String: String]? { nil }
        var multipartBody: MultipartFormData? {
            var form = MultipartFormData()
            form.append("report", name: "kind")
            return form
        }
    }

    func testADownloadWithAMultipartBodyFailsWithATypedErrorAndSendsNothing() throws {
        // A download streams its answer to disk and sends no body file: it used to skip
        // its transfer, answer from memory and report a file it never wrote.
        let destination = folder.appendingPathComponent("form.json")
        let op = DownloadOperation(request: FormDownload(), configuration: makeHost(), to: destination)
        guard case .failure(let error)? = run(op) else {
            return XCTFail("a download cannot send a multipart body: \(String(describing: op.result))")
        }
        XCTAssertEqual(error.kind, .invalidRequest, "\(error)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertTrue(server.requests.isEmpty, "nothing is sent")
    }

    /// A 307 or 308 keeps the method and the body. Where URLSession would send a download's
    /// body-carrying redirect empty (Linux), the download fails with a typed error and the
    /// target receives nothing; elsewhere the body arrives.
    func testADownloadWithABodyRedirectedBy307IsNeverSentEmpty() throws {
        server.route("/moved") { _ in .status(307, headers: ["Location": "/target"]) }
        server.route("/target") { request in .data(request.body) }
        let destination = folder.appendingPathComponent("posted.bin")
        let request = TestRequest("/moved", method: .post, query: .json, params: ["k": "v"])
        let result = run(DownloadOperation(request: request, configuration: makeHost(), to: destination))
        #if canImport(FoundationNetworking)
        guard case .failure(let error)? = result else { return XCTFail("must fail: \(String(describing: result))") }
        XCTAssertEqual(error.kind, .invalidRequest, "\(error)")
        XCTAssertEqual(error.statusCode, 307, "\(error)")
        XCTAssertTrue(server.requests(path: "/target").isEmpty, "never an empty POST")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        #else
        XCTAssertEqual(try Data(contentsOf: XCTUnwrap(result).get()), Data(#"{"k":"v"}"#.utf8))
        #endif
    }
}
