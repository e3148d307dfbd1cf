import EasyNetwork
import EasyNetworkRetry
import EasyNetworkUploads
import EasyNetworkOrchestration
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request with an absolute URL, a stable multipart body and its own timeouts.
private struct TransferRequest: BaseAPIRequest {
    var url: URL
    var method: NetworkService.Method = .get
    var form: MultipartFormData?
    var timeout: TimeInterval?
    var totalTimeout: TimeInterval?
    var api: String { "" }
    var query: NetworkService.QueryType { .path }
    var params: [String: Any]? { nil }
    var headers: [String: String]? { nil }
    var absoluteURL: URL? { url }
    var multipartBody: MultipartFormData? { form }
    var retryPolicy: RetryPolicy? { RetryPolicy.none }
}

/// ``AttemptTimer`` and its ``AttemptDeadline``. The timeout is an idle timeout (as
/// Apple's `timeoutIntervalForRequest`): it ends a transfer only when no byte moved for
/// that long, however long the whole takes.
final class AttemptTimerTests: ServerTestCase {
    private let queue = NetworkQueue()

    private func url(_ pathAndQuery: String) -> URL {
        URL(string: server.baseURL.absoluteString + pathAndQuery)!
    }

    private func form(megabytes: Int) -> MultipartFormData {
        var form = MultipartFormData()
        form.append(Data(repeating: 0x5A, count: megabytes << 20), name: "file", fileName: "big.bin")
        return form
    }

    /// Runs `op` and returns its result and how long it took.
    private func run(_ op: RequestOperation<Any?>) -> (Result<Any?, NetworkError>?, TimeInterval) {
        let done = expectation(description: "done")
        op.completion = { _ in done.fulfill() }
        let started = Date()
        queue.addOperation(op)
        wait(for: [done], timeout: 30)
        return (op.result, Date().timeIntervalSince(started))
    }

    private func run<Output>(_ op: RequestOperation<Output>, timeout: TimeInterval = 10) -> Result<Output, NetworkError>? {
        let done = expectation(description: "done")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: timeout)
        return op.result
    }

    func testUploadLongerThanTheTimeoutSucceedsWhileBytesKeepMoving() throws {
        let host = makeHost()
        let request = TransferRequest(
            url: url("/slow-upload?step=65536&interval_ms=10"),
            method: .post,
            form: form(megabytes: 16),
            timeout: 1
        )
        let op = RequestOperation(request: request, configuration: host, responseDecoder: .json)
        let progress = Collector<(Date, Double)>()
        op.onUploadProgress = { progress.append((Date(), $0.fractionCompleted)) }
        let (result, elapsed) = run(op)
        guard case .success(let json)? = result else {
            let reached = progress.values.last?.1 ?? 0
            return XCTFail("the upload failed after \(elapsed) s at \(Int(reached * 100)) %: \(String(describing: result))")
        }
        XCTAssertGreaterThan((json as? [String: Any])?["bodyLength"] as? Int ?? 0, 16 << 20)
        XCTAssertGreaterThan(elapsed, 1.5, "the upload must take well over the timeout for this test to mean anything")
    }

    func testUploadWithoutAProgressHandlerAlsoKeepsItsTimeoutReset() {
        let host = makeHost()
        let request = TransferRequest(
            url: url("/slow-upload?step=65536&interval_ms=10"),
            method: .post,
            form: form(megabytes: 12),
            timeout: 1
        )
        let (result, elapsed) = run(RequestOperation(request: request, configuration: host, responseDecoder: .json))
        guard case .success(let json)? = result else {
            return XCTFail("the upload failed after \(elapsed) s: \(String(describing: result))")
        }
        XCTAssertGreaterThan((json as? [String: Any])?["bodyLength"] as? Int ?? 0, 12 << 20)
        XCTAssertGreaterThan(elapsed, 1.5, "the upload must take well over the timeout for this test to mean anything")
    }

    func testUploadThatStallsTimesOutAboutTheTimeoutAfterTheStall() throws {
        let host = makeHost()
        let request = TransferRequest(
            url: url("/slow-upload?step=65536&interval_ms=5&stall_after=1048576&stall_ms=5000"),
            method: .post,
            form: form(megabytes: 8),
            timeout: 1
        )
        let (result, elapsed) = run(RequestOperation(request: request, configuration: host, responseDecoder: .json))
        guard case .failure(let error)? = result else { return XCTFail("a stalled upload must fail: \(String(describing: result))") }
        XCTAssertTrue(error.isTimeout, "\(error)")
        XCTAssertGreaterThanOrEqual(elapsed, 1)
        XCTAssertLessThan(elapsed, 1 + 3, "the multipart file is written before the clock starts")
    }

    func testResponseThatStallsTimesOutAboutTheTimeoutAfterTheStall() {
        let host = makeHost()
        let request = TransferRequest(url: url("/slow-body?chunks=3&interval_ms=4000"), timeout: 0.5)
        let (result, elapsed) = run(RequestOperation(request: request, configuration: host, responseDecoder: .json))
        guard case .failure(let error)? = result else { return XCTFail("a stalled body must fail: \(String(describing: result))") }
        XCTAssertTrue(error.isTimeout, "\(error)")
        XCTAssertGreaterThanOrEqual(elapsed, 0.5)
        XCTAssertLessThan(elapsed, 0.5 + 2.5)
    }

    func testResponseTrickledSteadilyForLongerThanTheTimeoutSucceeds() {
        let host = makeHost()
        let request = TransferRequest(url: url("/slow-body?chunks=15&interval_ms=150"), timeout: 1)
        let (result, elapsed) = run(RequestOperation(request: request, configuration: host, responseDecoder: .json))
        guard case .success(let json)? = result else {
            return XCTFail("a steady trickle failed after \(elapsed) s: \(String(describing: result))")
        }
        XCTAssertEqual((json as? [Int])?.count, 15)
        XCTAssertGreaterThan(elapsed, 1.5, "the body must take well over the timeout for this test to mean anything")
    }

    func testIdenticalRequestsSharingATrickleSucceedLongerThanTheTimeout() {
        let host = makeHost()
        host.coalescesRequests = true
        let request = TransferRequest(url: url("/slow-body?chunks=15&interval_ms=150"), timeout: 1)
        let first = RequestOperation(request: request, configuration: host, responseDecoder: .json)
        let second = RequestOperation(request: request, configuration: host, responseDecoder: .json)
        let done = expectation(description: "both")
        done.expectedFulfillmentCount = 2
        first.completion = { _ in done.fulfill() }
        second.completion = { _ in done.fulfill() }
        queue.addOperations([first, second], waitUntilFinished: false)
        wait(for: [done], timeout: 30)
        for op in [first, second] {
            guard case .success(let json)? = op.result else { return XCTFail("a shared trickle failed: \(String(describing: op.result))") }
            XCTAssertEqual((json as? [Int])?.count, 15)
        }
        XCTAssertEqual(server.requests.count, 1, "the two requests shared one transfer")
    }

    func testTotalTimeoutCutsAResponseThatKeepsMoving() {
        let host = makeHost()
        let request = TransferRequest(url: url("/slow-body?chunks=30&interval_ms=100"), timeout: 5, totalTimeout: 0.8)
        let (result, elapsed) = run(RequestOperation(request: request, configuration: host, responseDecoder: .json))
        guard case .failure(let error)? = result else { return XCTFail("the total timeout must end the transfer: \(String(describing: result))") }
        XCTAssertTrue(error.isTimeout, "\(error)")
        XCTAssertEqual(error.kind, .transport)
        XCTAssertGreaterThanOrEqual(elapsed, 0.8)
        XCTAssertLessThan(elapsed, 0.8 + 2.5)
    }

    func testHostTotalTimeoutCutsAnUploadThatKeepsMoving() {
        let host = makeHost()
        host.totalTimeout = 0.8
        let request = TransferRequest(
            url: url("/slow-upload?step=65536&interval_ms=10"),
            method: .post,
            form: form(megabytes: 16),
            timeout: 5
        )
        let op = RequestOperation(request: request, configuration: host, responseDecoder: .json)
        let moved = Collector<Double>()
        op.onUploadProgress = { moved.append($0.fractionCompleted) }
        let (result, elapsed) = run(op)
        guard case .failure(let error)? = result else { return XCTFail("the total timeout must end the upload: \(String(describing: result))") }
        XCTAssertTrue(error.isTimeout, "\(error)")
        XCTAssertLessThan(moved.values.last ?? 0, 1, "the upload was cut before its end")
        XCTAssertGreaterThanOrEqual(elapsed, 0.8)
        XCTAssertLessThan(elapsed, 0.8 + 3, "the multipart file is written before the clock starts")
    }

    func testSubSecondTimeoutIsExact() {
        let started = Date()
        guard case .failure(let error)? = run(RequestOperation(request: TestRequest("/delay/2000", timeout: 0.3), configuration: makeHost(), responseDecoder: .json)) else {
            return XCTFail("must fail")
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertTrue(error.isTimeout, "\(error)")
        XCTAssertEqual(error.kind, .transport)
        XCTAssertGreaterThanOrEqual(elapsed, 0.3)
        XCTAssertLessThan(elapsed, 0.5)
    }

    func testHostTimeoutAppliesAndRequestOverrideWins() {
        let host = makeHost()
        host.timeout = 0.25
        let started = Date()
        guard case .failure(let error)? = run(RequestOperation(request: TestRequest("/delay/1500"), configuration: host, responseDecoder: .json)) else {
            return XCTFail("must fail")
        }
        XCTAssertTrue(error.isTimeout)
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.45)
        XCTAssertNoThrow(try run(RequestOperation(request: TestRequest("/delay/400", timeout: 2), configuration: host, responseDecoder: .json))?.get())
    }

    /// The request's own timeout governs, not the session configuration's
    /// `timeoutIntervalForRequest`: swift-corelibs-foundation honours a request's
    /// `timeoutInterval` only when it was set (not given to the initializer), and else
    /// cut every request after the configuration's (60 s by default) of silence.
    func testTheSessionConfigurationsTimeoutDoesNotCutALongerRequestTimeout() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 1
        let host = HostConfiguration(baseURL: server.baseURL, sessionConfiguration: configuration)
        host.callbackQueue = callbackQueue
        // Kept by the session (whole seconds on Linux), and by EasyNetwork's clock.
        for timeout in [3, 2.5] {
            let (result, elapsed) = run(RequestOperation(request: TestRequest("/delay/1600", timeout: timeout), configuration: host, responseDecoder: .json))
            XCTAssertNoThrow(try result?.get(), "timeout \(timeout) s, after \(elapsed) s")
        }
    }

    func testTimeoutIsATransportTimeout() {
        let started = Date()
        let error = failure(of: send(TestRequest("/delay/3000", timeout: 1)))
        XCTAssertEqual(error?.kind, .transport)
        XCTAssertTrue(error?.isTimeout ?? false, "\(String(describing: error))")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.9)
    }
}
