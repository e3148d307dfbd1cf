@testable import EasyNetwork
@testable import EasyNetworkRetry
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A host's retry engine with a driven clock: the budget, the pause and the breaker decide
/// together, a withheld retry ends with the real failure, and no two hosts share anything.
final class RetryEngineTests: XCTestCase {
    private let url = URL(string: "http://127.0.0.1/items")!
    private let host = HostConfiguration(baseURL: URL(string: "http://127.0.0.1"))

    private func response(_ status: Int, retryAfter: String? = nil) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: nil, headerFields: retryAfter.map { ["Retry-After": $0] } ?? [:])!
    }

    private func failure(_ status: Int, retryAfter: String? = nil) -> NetworkError {
        NetworkError(kind: .unacceptableStatus, message: "busy", url: url, response: response(status, retryAfter: retryAfter))
    }

    private func context(attempt: Int, request: any BaseAPIRequest = TestRequest("/items")) -> RequestContext {
        RequestContext(request: request, host: host, attempt: attempt, requestID: 0, ledger: nil)
    }

    /// Records that an attempt failed with `status` (and its `Retry-After`), as the plug-in does.
    private func fail(_ engine: RetryEngine, _ status: Int = 503, retryAfter: String? = nil, probe: Bool = false) {
        engine.record(RetryEngine.signal(status: status), response: response(status, retryAfter: retryAfter), probe: probe)
    }

    private func engine(_ clock: TestClock, budget: RetryBudget?? = nil, backpressure: Backpressure?? = nil, breaker: CircuitBreaker?? = nil) -> RetryEngine {
        let engine = RetryEngine(clock: clock.clock)
        engine.update(budget: budget, backpressure: backpressure, breaker: breaker)
        return engine
    }

    func testARetryTheBudgetRefusesEndsWithTheRealFailureSayingSo() {
        let clock = TestClock(random: 0.5)
        let engine = engine(clock)
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: 1, jitter: 0)
        fail(engine)
        guard case .retry(let delay) = engine.decide(failure(503), policy: policy, context: context(attempt: 1)) else {
            return XCTFail("the first failures are retried")
        }
        XCTAssertEqual(delay, 1)
        fail(engine)
        fail(engine)
        guard case .fail(let error) = engine.decide(failure(503), policy: policy, context: context(attempt: 3)) else {
            return XCTFail("3 failures in a row spend the budget")
        }
        XCTAssertEqual(error.kind, .unacceptableStatus, "the real failure, no new kind")
        XCTAssertEqual(error.statusCode, 503)
        XCTAssertEqual(error.response?.statusCode, 503)
        XCTAssertEqual(error.message, "busy; retry withheld: the host's retry budget is spent")
        XCTAssertEqual(error.errorDescription, "The server answered with status 503 Service Unavailable: busy; retry withheld: the host's retry budget is spent.")

        // Successes refill it: 31 answers later retries come back (3 tokens were left, 0.1 each).
        for _ in 0..<31 { engine.record(RetryEngine.signal(status: 200), response: response(200), probe: false) }
        guard case .retry = engine.decide(failure(503), policy: policy, context: context(attempt: 1)) else {
            return XCTFail("refilled by successes")
        }
        // And so does time: drained, then 4 tokens (more than half) after 120 s.
        for _ in 0..<10 { fail(engine) }
        guard case .fail = engine.decide(failure(503), policy: policy, context: context(attempt: 1)) else { return XCTFail("drained") }
        clock.advance(119)
        guard case .fail = engine.decide(failure(503), policy: policy, context: context(attempt: 1)) else { return XCTFail("3 tokens after 90 s: half, not more") }
        clock.advance(1)
        guard case .retry = engine.decide(failure(503), policy: policy, context: context(attempt: 1)) else {
            return XCTFail("refilled by the floor")
        }
    }

    func testAPauseHoldsEveryRequestOfTheHostUntilItsJitteredEnd() {
        let clock = TestClock(random: 0.5)
        let engine = engine(clock)
        guard case .go = engine.admission(url: url, previous: nil) else { return XCTFail("not paused yet") }
        fail(engine, 503, retryAfter: "30")
        XCTAssertEqual(engine.sendingPause ?? 0, 37.5, accuracy: 1e-9, "30 s + 0.5 × 50 %")
        guard case .refused(let refusal) = engine.admission(url: url, previous: nil) else { return XCTFail("paused") }
        XCTAssertEqual(refusal.kind, .unacceptableStatus)
        XCTAssertEqual(refusal.statusCode, 503, "the status that paused the host")
        XCTAssertEqual(refusal.url, url)
        XCTAssertEqual(refusal.message, "not sent: the server asked this host to pause (Retry-After); it may be sent to again in 37.5 s")

        // A retry decided now waits for the end of the pause, not for its own Retry-After.
        let policy = RetryPolicy(maxAttempts: 3)
        guard case .retry(let delay) = engine.decide(failure(503, retryAfter: "30"), policy: policy, context: context(attempt: 1)) else {
            return XCTFail("retried after the pause")
        }
        XCTAssertEqual(delay, 37.5, accuracy: 1e-9)

        // A retry whose backoff ends inside the pause ends with its own failure.
        guard case .refused(let withheld) = engine.admission(url: url, previous: failure(502)) else { return XCTFail("paused") }
        XCTAssertEqual(withheld.statusCode, 502)
        XCTAssertEqual(withheld.message, "busy; retry withheld: the server asked this host to pause (Retry-After) for 37.5 s more")

        clock.advance(37.5)
        XCTAssertNil(engine.sendingPause)
        guard case .go = engine.admission(url: url, previous: nil) else { return XCTFail("the pause is over") }
    }

    func testAPauseComesOnlyFromItsStatusesAndAHeaderAndIsBounded() {
        let clock = TestClock(random: 1)
        let engine = engine(clock)
        fail(engine, 503)
        fail(engine, 500, retryAfter: "30")
        engine.record(RetryEngine.signal(status: 200), response: response(200, retryAfter: "30"), probe: false)
        XCTAssertNil(engine.sendingPause, "503 without Retry-After, 500 and 200 with one: no pause")
        fail(engine, 429, retryAfter: "86400")
        XCTAssertEqual(engine.sendingPause ?? 0, 90, accuracy: 1e-9, "cut to 60 s, then + 50 %")
        let dated = TestClock(random: 0)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let other = self.engine(dated)
        fail(other, 503, retryAfter: formatter.string(from: dated.date.addingTimeInterval(40)))
        XCTAssertEqual(other.sendingPause ?? 0, 40, accuracy: 1e-9, "an HTTP date 40 s ahead")
    }

    func testARetryAfterThatPausesNothingIsJitteredForTheRequestItself() {
        let policy = RetryPolicy(maxAttempts: 3, retryableStatusCodes: [500])
        let jittered = engine(TestClock(random: 0.5))
        fail(jittered, 500, retryAfter: "10")
        XCTAssertNil(jittered.sendingPause, "a 500 does not pause the host")
        guard case .retry(let delay) = jittered.decide(failure(500, retryAfter: "10"), policy: policy, context: context(attempt: 1)) else {
            return XCTFail("retried")
        }
        XCTAssertEqual(delay, 12.5, accuracy: 1e-9, "10 s + 0.5 × 50 %: not the same second as every other device")
        let bare = engine(TestClock(random: 0.5), backpressure: .some(nil))
        guard case .retry(let exact) = bare.decide(failure(500, retryAfter: "10"), policy: policy, context: context(attempt: 1)) else {
            return XCTFail("retried")
        }
        XCTAssertEqual(exact, 10, "without backpressure: exactly as asked (0.3)")
    }

    func testARetryNeverWaitsLongerThanTheRequestsTotalTimeout() {
        let engine = engine(TestClock(random: 0))
        struct Bounded: BaseAPIRequest {
            var api: String { "/items" }
            var totalTimeout: TimeInterval? { 10 }
        }
        let request = Bounded()
        fail(engine, 503, retryAfter: "30")
        guard case .fail(let error) = engine.decide(failure(503, retryAfter: "30"), policy: .default, context: context(attempt: 1, request: request)) else {
            return XCTFail("a 30 s wait does not fit a 10 s total timeout")
        }
        XCTAssertEqual(error.message, "busy; retry withheld: its wait of 30.0 s is longer than the request's totalTimeout of 10.0 s")
        guard case .retry = engine.decide(failure(503), policy: .default, context: context(attempt: 1, request: TestRequest("/items"))) else {
            return XCTFail("without a total timeout it waits")
        }
    }

    func testTheBreakerRefusesWithTheFailureThatOpenedItAndLetsOneProbeThrough() {
        let clock = TestClock(random: 0)
        let engine = engine(clock, breaker: CircuitBreaker(failureThreshold: 2, coolDown: 5))
        engine.record(RetryEngine.signal(transport: .timedOut), response: nil, probe: false)
        fail(engine, 502)
        guard case .refused(let refusal) = engine.admission(url: url, previous: nil) else { return XCTFail("open") }
        XCTAssertEqual(refusal.kind, .unacceptableStatus)
        XCTAssertEqual(refusal.statusCode, 502)
        XCTAssertEqual(refusal.message, "not sent: the host's circuit breaker is open after 2 failures in a row; it lets a request through in 5.0 s")
        XCTAssertEqual(engine.sendingPause, 5)
        guard case .fail(let withheld) = engine.decide(failure(502), policy: .default, context: context(attempt: 1)) else {
            return XCTFail("no retry while open")
        }
        XCTAssertEqual(withheld.message, "busy; retry withheld: the host's circuit breaker is open")
        clock.advance(5)
        guard case .probe = engine.admission(url: url, previous: nil) else { return XCTFail("one probe") }
        guard case .refused(let waiting) = engine.admission(url: url, previous: nil) else { return XCTFail("one probe only") }
        XCTAssertEqual(waiting.message, "not sent: the host's circuit breaker is open after 2 failures in a row; a probe request is out")
        engine.abandonProbe()
        guard case .probe = engine.admission(url: url, previous: nil) else { return XCTFail("the probe is handed on") }
        engine.record(RetryEngine.signal(status: 200), response: response(200), probe: true)
        guard case .go = engine.admission(url: url, previous: nil) else { return XCTFail("closed by the probe's success") }
    }

    func testABreakerATransportFailureOpenedRefusesWithThatTransportError() {
        let engine = engine(TestClock(random: 0), breaker: CircuitBreaker(failureThreshold: 1, coolDown: 5))
        engine.record(RetryEngine.signal(transport: .cannotConnectToHost), response: nil, probe: false)
        guard case .refused(let refusal) = engine.admission(url: url, previous: nil) else { return XCTFail("open") }
        XCTAssertEqual(refusal.kind, .transport)
        XCTAssertNil(refusal.statusCode)
        XCTAssertEqual(refusal.urlError?.code, .cannotConnectToHost, "the transport error that opened it")
    }

    func testTwoHostsShareNoneOfIt() {
        let clock = TestClock(random: 0)
        let rules = CircuitBreaker(failureThreshold: 1)
        let (busy, calm) = (engine(clock, breaker: rules), engine(clock, breaker: rules))
        for _ in 0..<5 { fail(busy, 503, retryAfter: "30") }
        guard case .refused = busy.admission(url: url, previous: nil) else { return XCTFail("busy is paused and open") }
        guard case .fail = busy.decide(failure(503), policy: .default, context: context(attempt: 1)) else { return XCTFail("busy's budget is spent") }
        XCTAssertNil(calm.sendingPause)
        guard case .go = calm.admission(url: url, previous: nil) else { return XCTFail("calm is neither paused nor open") }
        guard case .retry = calm.decide(failure(503), policy: .default, context: context(attempt: 1)) else { return XCTFail("calm's budget is full") }

        let hostA = HostConfiguration(baseURL: url), hostB = HostConfiguration(baseURL: url)
        hostA.retryPolicy = .default
        hostB.retryPolicy = .default
        XCTAssertFalse(hostA.retryEngine() === hostB.retryEngine(), "each host has its own engine")
        XCTAssertTrue(hostA.retryEngine() === hostA.retryEngine())
    }

    func testWithEveryFleetRuleOffARequestRetriesAsBefore() {
        let clock = TestClock(random: 1)
        let engine = engine(clock, budget: .some(nil), backpressure: .some(nil))
        for _ in 0..<50 { fail(engine, 503, retryAfter: "3") }
        XCTAssertNil(engine.sendingPause, "no host-wide pause")
        guard case .go = engine.admission(url: url, previous: nil) else { return XCTFail("nothing refused") }
        guard case .retry(let delay) = engine.decide(failure(503, retryAfter: "3"), policy: .default, context: context(attempt: 2)) else {
            return XCTFail("no budget: every retry the policy wants")
        }
        XCTAssertEqual(delay, 3, "Retry-After exactly, no jitter")
        guard case .pass = engine.decide(failure(503), policy: .default, context: context(attempt: 3)) else {
            return XCTFail("the policy's maxAttempts still ends it")
        }
        guard case .pass = engine.decide(failure(404), policy: .default, context: context(attempt: 1)) else {
            return XCTFail("a 404 is not retried")
        }
    }
}
