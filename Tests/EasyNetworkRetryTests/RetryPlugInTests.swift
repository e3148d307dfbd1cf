import EasyNetwork
import EasyNetworkPlugins
@testable import EasyNetworkRetry
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The retry engine in the pipeline, against the loopback server: the budget, the pause and
/// the breaker hold for every request of a host and for no other host; a token refresh and
/// an interceptor's retry take nothing from the budget; cancelling during a wait ends at once.
final class RetryPlugInTests: ServerTestCase {
    /// A host (under `/name`, if given) whose every failure is retried at once (3 attempts).
    private func retryingHost(_ name: String? = nil) -> HostConfiguration {
        let host = name.map { makeHost(path: $0) } ?? makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01, jitter: 0)
        return host
    }

    func testTheBudgetStopsTheRetriesOfEveryRequestOfAHostAndOfNoOtherHost() {
        server.route(prefix: "/") { _ in .status(503) }
        let host = retryingHost("a")
        var errors: [NetworkError] = []
        for n in 1...4 {
            errors += [failure(of: send(TestRequest("/down/\(n)"), host: host))].compactMap { $0 }
        }
        XCTAssertEqual((1...4).map { server.requests(path: "/a/down/\($0)").count }, [3, 1, 1, 1], "3 failures in a row spend the host's budget")
        XCTAssertEqual(errors.map(\.attempts), [3, 1, 1, 1])
        XCTAssertEqual(errors.map(\.statusCode), [503, 503, 503, 503], "the real failure")
        XCTAssertEqual(errors.map(\.kind), Array(repeating: .unacceptableStatus, count: 4), "no new kind")
        XCTAssertFalse(errors[0].localizedDescription.contains("withheld"), errors[0].localizedDescription)
        XCTAssertEqual(
            errors[1].localizedDescription,
            "The server answered with status 503 Service Unavailable: retry withheld: the host's retry budget is spent."
        )
        // Another host on the same server has its own budget.
        _ = send(TestRequest("/down/1"), host: retryingHost("b"))
        XCTAssertEqual(server.requests(path: "/b/down/1").count, 3)
    }

    /// A failure whose retry is withheld keeps the server's message where it was (in
    /// `serverMessage`, counted in the sentences, quoted only on a host that opts in).
    func testAWithheldRetryKeepsTheServersMessageAndTheHostsOptIn() {
        let secret = "token abc123 for ana@example.com"
        server.route(prefix: "/") { _ in .json(object: ["message": secret], status: 503) }
        for quotes in [false, true] {
            let host = retryingHost(quotes ? "quoting" : "counting")
            host.errorSentencesQuoteServerMessages = quotes
            _ = send(TestRequest("/spend"), host: host)  // 3 failures in a row spend the budget
            guard let error = failure(of: send(TestRequest("/down"), host: host)) else { return }
            let sentence = error.localizedDescription
            XCTAssertEqual(error.serverMessage, secret, sentence)
            XCTAssertEqual(error.statusCode, 503)
            XCTAssertEqual(error.attempts, 1)
            XCTAssertTrue(sentence.contains("retry withheld: the host's retry budget is spent"), sentence)
            if quotes {
                XCTAssertTrue(sentence.contains(secret), sentence)
                XCTAssertEqual(error.message, secret + "; retry withheld: the host's retry budget is spent", sentence)
            } else {
                XCTAssertEqual(
                    sentence,
                    "The server answered with status 503 Service Unavailable: the server sent a message of \(secret.count) "
                        + "characters (not quoted); retry withheld: the host's retry budget is spent."
                )
                for word in ["abc123", "ana@", "example", "token"] {
                    XCTAssertFalse(String(describing: error).contains(word), "\(word): \(error)")
                    XCTAssertFalse("\(error.errorUserInfo)".contains(word), "\(word): \(error.errorUserInfo)")
                }
            }
        }
    }

    func testARetryAfterPausesEveryRequestOfTheHostAndOnlyThatHost() {
        server.route(prefix: "/") { request in
            request.path.hasSuffix("/limited") ? .status(503, headers: ["Retry-After": "30"]) : .json(#"{"ok": true}"#)
        }
        let host = makeHost(path: "a")
        host.retryPolicy = .none  // one attempt each; the engine still watches the host
        XCTAssertEqual(failure(of: send(TestRequest("/limited"), host: host))?.statusCode, 503)
        let started = Date()
        let refused = failure(of: send(TestRequest("/free"), host: host))
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "at once, not after the pause")
        XCTAssertEqual(server.requests(path: "/a/free").count, 0, "nothing sent to a paused host")
        XCTAssertEqual(refused?.kind, .unacceptableStatus)
        XCTAssertEqual(refused?.statusCode, 503, "the status that paused the host")
        XCTAssertEqual(refused?.attempts, 0)
        XCTAssertTrue(refused?.message?.hasPrefix("not sent: the server asked this host to pause (Retry-After)") == true, String(describing: refused))

        let other = makeHost(path: "b")
        other.retryPolicy = .none
        XCTAssertNotNil(value(of: send(TestRequest("/free"), host: other)), "another host is not paused")
        XCTAssertEqual(server.requests(path: "/b/free").count, 1)
        XCTAssertNotNil(value(of: send(TestRequest("/free"), host: makeHost(path: "a"))), "nor is a host without the engine, same URL")
    }

    func testCancellingARetryThatWaitsForThePauseEndsItAtOnce() {
        server.route("GET", "/wait") { _ in .status(503, headers: ["Retry-After": "5"]) }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 2)
        let queue = NetworkQueue()
        let op = RequestOperation(request: TestRequest("/wait"), configuration: host, responseDecoder: .json)
        let done = expectation(description: "done")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        waitForRequests(path: "/wait", count: 1)
        RunLoop.current.run(until: Date().addingTimeInterval(0.1))
        let cancelledAt = Date()
        op.cancel()
        wait(for: [done], timeout: 4)  // the pause is 5 s to 7.5 s
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 4)
        guard case .failure(let error)? = op.result else { return XCTFail("must fail") }
        XCTAssertTrue(error.isCancelled)
        XCTAssertEqual(server.requests(path: "/wait").count, 1)
    }

    func testTheBreakerOpensProbesAndClosesWithADrivenClock() {
        let script = Script([.status(502), .status(502), .json(#"{"ok": true}"#)])
        server.route("GET", "/flaky") { _ in script.next() }
        let clock = TestClock(random: 0)
        let host = makeHost()
        _ = host.retryEngine(clock: clock.clock)
        host.circuitBreaker = CircuitBreaker(failureThreshold: 2, coolDown: 10)
        XCTAssertEqual(failure(of: send(TestRequest("/flaky"), host: host))?.statusCode, 502)
        _ = send(TestRequest("/flaky"), host: host)
        let refused = failure(of: send(TestRequest("/flaky"), host: host))
        XCTAssertEqual(server.requests(path: "/flaky").count, 2, "open: the third request is not sent")
        XCTAssertEqual(refused?.statusCode, 502)
        XCTAssertEqual(refused?.attempts, 0)
        XCTAssertEqual(refused?.message, "not sent: the host's circuit breaker is open after 2 failures in a row; it lets a request through in 10.0 s")
        clock.advance(10)
        XCTAssertNotNil(value(of: send(TestRequest("/flaky"), host: host)), "the probe goes and succeeds")
        XCTAssertNotNil(value(of: send(TestRequest("/flaky"), host: host)), "closed")
        XCTAssertEqual(server.requests(path: "/flaky").count, 4)
    }

    func testACancelledProbeHandsTheProbeOnToTheNextRequest() {
        server.route("GET", "/down") { _ in .status(500) }
        server.route("GET", "/slow") { _ in .delayed(5, .json("{}")) }
        server.route("GET", "/up") { _ in .json("{}") }
        let clock = TestClock(random: 0)
        let host = makeHost()
        _ = host.retryEngine(clock: clock.clock)
        host.circuitBreaker = CircuitBreaker(failureThreshold: 1, coolDown: 10)
        _ = send(TestRequest("/down"), host: host)
        clock.advance(10)
        let service = EasyNetworkService(host)
        let ended = expectation(description: "probe ended")
        service.request(TestRequest("/slow"), success: { _ in ended.fulfill() }, failure: { _ in ended.fulfill() })
        waitForRequests(path: "/slow", count: 1)
        XCTAssertEqual(failure(of: send(TestRequest("/up"), host: host))?.message?.hasSuffix("a probe request is out"), true)
        service.cancel()
        wait(for: [ended], timeout: 4)
        XCTAssertNotNil(value(of: send(TestRequest("/up"), host: host)), "the next request probes, and closes it")
    }

    func testATokenRefreshIsNoRetryAndAnInterceptorsRetryTakesNothingFromTheBudget() {
        server.route("GET", "/down") { _ in .status(503) }
        server.route("GET", "/me") { request in
            request.header("Authorization") == "Bearer new" ? .json(#"{"me": 1}"#) : .status(401)
        }
        let host = retryingHost()
        host.authenticator = TokenAuthenticator(token: "old") { done in done(.success("new")) }
        for _ in 0..<3 { _ = send(TestRequest("/down"), host: host) }
        XCTAssertEqual(server.requests(path: "/down").count, 5, "3 attempts, then the budget is spent: 1, 1")
        XCTAssertNotNil(value(of: send(TestRequest("/me"), host: host)), "the refresh replays though no retry is left")
        XCTAssertEqual(server.requests(path: "/me").map { $0.header("Authorization") }, ["Bearer old", "Bearer new"])

        let asked = Collector<Int>()
        host.interceptors = [ClosureInterceptor(retry: { _, context, completion in
            asked.append(context.attempt)
            completion(context.attempt < 2 ? .retry(after: 0) : .pass)
        })]
        _ = send(TestRequest("/down"), host: host)
        XCTAssertEqual(server.requests(path: "/down").count, 7, "the interceptor's own retry went out")
        XCTAssertEqual(asked.values, [1, 2])
    }

    func testARequestsOwnPolicyIsDecidedWithItsHostsRules() {
        server.route(prefix: "/") { _ in .status(503) }
        struct Persistent: BaseAPIRequest {
            var api: String { "/own" }
            var retryPolicy: RetryPolicy? { RetryPolicy(maxAttempts: 10, baseDelay: 0.01) }
        }
        let host = makeHost()
        host.retryPolicy = .none
        let error = failure(of: send(Persistent(), host: host))
        XCTAssertEqual(server.requests(path: "/own").count, 3, "its 10 attempts stop where the host's budget does")
        XCTAssertTrue(error?.message?.hasSuffix("retry withheld: the host's retry budget is spent") == true, String(describing: error))
        host.retryBudget = nil
        _ = send(Persistent(), host: host)
        XCTAssertEqual(server.requests(path: "/own").count, 13, "without a budget: all 10")
    }

    func testTheHostPropertiesInstallOneEngineWithTheFleetDefaults() {
        let host = makeHost()
        XCTAssertNil(host.retryBudget, "no engine yet")
        XCTAssertNil(host.backpressure)
        XCTAssertEqual(host.retryPolicy.maxAttempts, 1)
        host.circuitBreaker = .default
        XCTAssertEqual(host.retryBudget, .default)
        XCTAssertEqual(host.backpressure, .default)
        XCTAssertEqual(host.circuitBreaker, .default)
        XCTAssertEqual(host.retryPolicy.maxAttempts, 1, "the breaker alone retries nothing")
        let engine = host.retryEngine()
        host.retryPolicy = .default
        host.retryBudget = RetryBudget(maxTokens: 20)
        XCTAssertTrue(host.retryEngine() === engine, "one engine per host")
        XCTAssertEqual(host.retryPolicy.maxAttempts, 3)
        XCTAssertEqual(host.retryBudget?.maxTokens, 20)
    }
}
