import EasyNetwork
import EasyNetworkRetry
import EasyNetworkTesting
import EasyNetworkPlugins
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class RetryPolicyTests: ServerTestCase {
    private let queue = NetworkQueue()

    private func run<Output>(_ op: RequestOperation<Output>, timeout: TimeInterval = 10) -> Result<Output, NetworkError>? {
        let done = expectation(description: "done")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: timeout)
        return op.result
    }

    private func gaps(_ path: String) -> [TimeInterval] {
        let times = server.requests(path: path).map(\.receivedAt)
        return zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
    }

    func testRetriesTwoFailuresWithBackoffThenSucceeds() throws {
        let script = Script([.status(503), .status(503), .json(#"{"ok": true}"#)])
        server.route("GET", "/flaky") { _ in script.next() }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.2, multiplier: 2, jitter: 0)
        let op = RequestOperation(request: TestRequest("/flaky"), configuration: host, responseDecoder: .json)
        XCTAssertNoThrow(try run(op)?.get())
        XCTAssertEqual(server.requests(path: "/flaky").count, 3)
        XCTAssertEqual(op.metrics?.attempts, 3)
        let gaps = gaps("/flaky")
        XCTAssertEqual(gaps.count, 2)
        XCTAssertGreaterThanOrEqual(gaps.first ?? 0, 0.19, "first backoff 0.2 s")
        XCTAssertGreaterThanOrEqual(gaps.last ?? 0, 0.39, "second backoff 0.4 s")
    }

    func testFinalErrorSaysHowManyAttempts() {
        server.route("GET", "/down") { _ in .status(503) }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01, jitter: 0)
        guard case .failure(let error)? = run(RequestOperation(request: TestRequest("/down"), configuration: host, responseDecoder: .json)) else {
            return XCTFail("must fail")
        }
        XCTAssertEqual(error.attempts, 3)
        XCTAssertEqual(error.statusCode, 503)
        XCTAssertTrue(error.localizedDescription.contains("after 3 attempts"), error.localizedDescription)
        XCTAssertEqual(server.requests(path: "/down").count, 3)
    }

    func testPostIsNotRetriedByDefaultButCanOptIn() {
        server.route("POST", "/orders") { _ in .status(503) }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01)
        let post = TestRequest("/orders", method: .post, query: .json, params: ["sku": "A"])
        guard case .failure(let error)? = run(RequestOperation(request: post, configuration: host, responseDecoder: .json)) else {
            return XCTFail("must fail")
        }
        XCTAssertEqual(error.attempts, 1)
        XCTAssertEqual(server.requests(path: "/orders").count, 1)

        host.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 0.01, retriesNonIdempotentMethods: true)
        _ = run(RequestOperation(request: post, configuration: host, responseDecoder: .json))
        XCTAssertEqual(server.requests(path: "/orders").count, 3)
    }

    func testRetryAfterSecondsIsHonoured() throws {
        let script = Script([.status(429, headers: ["Retry-After": "1"]), .json("{}")])
        server.route("GET", "/limited") { _ in script.next() }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 0.01)
        XCTAssertNoThrow(try run(RequestOperation(request: TestRequest("/limited"), configuration: host, responseDecoder: .json))?.get())
        XCTAssertGreaterThanOrEqual(gaps("/limited").first ?? 0, 0.95)
    }

    func testRetryAfterHTTPDateAndCap() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let policy = RetryPolicy(maxRetryAfter: 10)
        func error(_ header: String) -> NetworkError {
            let response = HTTPURLResponse(url: URL(fileURLWithPath: "/"), statusCode: 503, httpVersion: nil, headerFields: ["Retry-After": header])
            return NetworkError(kind: .unacceptableStatus, response: response)
        }
        XCTAssertEqual(policy.delay(after: 1, error: error(formatter.string(from: now.addingTimeInterval(4))), now: now), 4, accuracy: 0.001)
        XCTAssertEqual(policy.delay(after: 1, error: error("120"), now: now), 10)
        XCTAssertEqual(policy.delay(after: 1, error: error("garbage"), now: now) <= policy.baseDelay * 1.25, true)
    }

    /// Issue 28: `maxDelay` bounds the backoff the policy computes, `maxRetryAfter` the
    /// wait a server asks for with `Retry-After`; neither shortens the other's. A server's
    /// wait is honoured beyond `maxDelay` (retrying sooner than it asked would defeat it),
    /// up to `maxRetryAfter`; without a honoured `Retry-After`, no delay exceeds `maxDelay`.
    func testMaxDelayBoundsTheBackoffAndMaxRetryAfterTheServersWait() {
        func error(_ retryAfter: String?) -> NetworkError {
            let response = HTTPURLResponse(url: URL(fileURLWithPath: "/"), statusCode: 503, httpVersion: nil,
                                           headerFields: retryAfter.map { ["Retry-After": $0] } ?? [:])
            return NetworkError(kind: .unacceptableStatus, response: response)
        }
        let policy = RetryPolicy(maxAttempts: 20, baseDelay: 0.5, maxDelay: 1, jitter: 1)
        XCTAssertEqual(policy.delay(after: 1, error: error("5")), 5, "a server's wait is not cut to maxDelay")
        XCTAssertEqual(RetryPolicy(maxDelay: 1, maxRetryAfter: 3).delay(after: 1, error: error("5")), 3, "maxRetryAfter cuts it")
        var ignoring = policy
        ignoring.honorsRetryAfter = false
        for attempt in 1...12 {
            for _ in 0..<50 {
                XCTAssertLessThanOrEqual(policy.delay(after: attempt, error: error(nil)), 1, "attempt \(attempt)")
                XCTAssertLessThanOrEqual(ignoring.delay(after: attempt, error: error("5")), 1, "attempt \(attempt), Retry-After ignored")
            }
        }
        // On the wire: a 503 with Retry-After: 1 under maxDelay 0.05 waits the second.
        let script = Script([.status(503, headers: ["Retry-After": "1"]), .json("{}")])
        server.route("GET", "/busy") { _ in script.next() }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 0.05)
        XCTAssertNoThrow(try run(RequestOperation(request: TestRequest("/busy"), configuration: host, responseDecoder: .json))?.get())
        XCTAssertGreaterThanOrEqual(gaps("/busy").first ?? 0, 0.95)
    }

    func testCancelDuringBackoffEndsAtOnce() {
        server.route("GET", "/wait") { _ in .status(503, headers: ["Retry-After": "5"]) }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 3)
        let op = RequestOperation(request: TestRequest("/wait"), configuration: host, responseDecoder: .json)
        let done = expectation(description: "done")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        waitForRequests(path: "/wait", count: 1)
        RunLoop.current.run(until: Date().addingTimeInterval(0.1))
        let cancelledAt = Date()
        op.cancel()
        wait(for: [done], timeout: 2)
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 0.1)
        XCTAssertEqual(op.result.map { if case .failure(let e) = $0 { return e.isCancelled } else { return false } }, true)
        XCTAssertEqual(server.requests(path: "/wait").count, 1)
    }

    func testTransientTransportErrorsAreRetried() throws {
        let script = Script([.closeWithoutResponse, .json(#"{"ok": 1}"#)])
        server.route("GET", "/dropped") { _ in script.next() }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 0.01, retryableURLErrorCodes: [.networkConnectionLost, .badServerResponse, .cannotParseResponse])
        XCTAssertNoThrow(try run(RequestOperation(request: TestRequest("/dropped"), configuration: host, responseDecoder: .json))?.get())
        XCTAssertEqual(server.requests(path: "/dropped").count, 2)
    }

    func testPerRequestRetryPolicyOverridesTheHost() {
        server.route("GET", "/once") { _ in .status(500) }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01)
        struct NoRetry: BaseAPIRequest {
            var api: String { "/once" }
            var method: NetworkService.Method { .get }
            var query: NetworkService.QueryType { .path }
            var params: [String: Any]? { nil }
            var headers: [String: String]? { nil }
            var retryPolicy: RetryPolicy? { RetryPolicy.none }
        }
        _ = run(RequestOperation(request: NoRetry(), configuration: host, responseDecoder: .json))
        XCTAssertEqual(server.requests(path: "/once").count, 1)
    }

    func testMetricsAreReportedEverywhere() throws {
        let host = makeHost()
        let seen = Collector<RequestMetrics>()
        host.interceptors = [ClosureInterceptor(didFinish: { outcome, _ in seen.append(outcome.metrics) })]
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        let blocker = RequestOperation(request: TestRequest("/delay/200"), configuration: host, responseDecoder: .json)
        let op = RequestOperation(request: TestRequest("/delay/100", method: .post, query: .json, params: ["k": "v"]), configuration: host, responseDecoder: .json)
        queue.addOperations([blocker, op], waitUntilFinished: false)
        waitUntilFinished(op)
        let metrics = try XCTUnwrap(op.metrics)
        XCTAssertEqual(metrics.attempts, 1)
        XCTAssertEqual(metrics.bytesSent, #"{"k":"v"}"#.utf8.count)
        XCTAssertGreaterThan(metrics.bytesReceived, 0)
        XCTAssertGreaterThanOrEqual(metrics.duration, 0.1)
        XCTAssertGreaterThanOrEqual(metrics.queuedDuration, 0.15, "it waited behind the blocker")
        XCTAssertEqual(seen.count, 2)
        XCTAssertTrue(seen.values.contains(metrics))
    }
}
