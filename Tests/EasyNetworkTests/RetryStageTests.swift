import EasyNetwork
import EasyNetworkRetry
import EasyNetworkPlugins
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one place a retry is decided: interceptors asked in order, asynchronously, the
/// first answer that is not `.pass` winning, the retry policy last.
final class RetryStageTests: ServerTestCase {
    /// An interceptor that notes each retry question under its name and passes.
    private func passing(_ name: String, log: Collector<String>) -> ClosureInterceptor {
        ClosureInterceptor(retry: { error, context, completion in
            log.append("\(name)#\(context.attempt) \(error.statusCode ?? 0)")
            completion(.pass)
        })
    }

    func testAnAsyncDecisionFromAnotherThreadRetries() {
        let script = Script([.status(503), .json(#"{"ok": true}"#)])
        server.route("GET", "/flaky") { _ in script.next() }
        let host = makeHost()  // retry policy .none: only the interceptor can retry
        let decider = DispatchQueue(label: "decider")
        host.interceptors = [ClosureInterceptor(retry: { error, context, completion in
            decider.asyncAfter(deadline: .now() + 0.1) {
                completion(context.attempt == 1 && error.statusCode == 503 ? .retry(after: 0.05) : .pass)
            }
        })]
        let result = send(TestRequest("/flaky"), host: host)
        XCTAssertEqual((value(of: result) as? [String: Bool])?["ok"], true)
        XCTAssertEqual(server.requests(path: "/flaky").count, 2)
    }

    func testFailReplacesTheErrorAndStopsTheRetryPolicy() {
        server.route("GET", "/down") { _ in .status(503) }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01)
        host.interceptors = [ClosureInterceptor(retry: { _, _, completion in
            DispatchQueue.global().async { completion(.fail(NetworkError(kind: .business, message: "maintenance"))) }
        })]
        let error = failure(of: send(TestRequest("/down"), host: host))
        XCTAssertEqual(error?.kind, .business)
        XCTAssertEqual(error?.message, "maintenance")
        XCTAssertEqual(error?.attempts, 1)
        XCTAssertEqual(server.requests(path: "/down").count, 1, "the policy was not asked")
    }

    func testHostInterceptorsAreAskedBeforeTheRequestsAndThePolicyLast() {
        let script = Script([.status(503), .json("{}")])
        server.route("GET", "/flaky") { _ in script.next() }
        let log = Collector<String>()
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 0.01)
        host.interceptors = [passing("A", log: log), passing("B", log: log)]
        XCTAssertNotNil(value(of: send(InterceptedRequest(api: "/flaky", extra: [passing("C", log: log)]), host: host)))
        XCTAssertEqual(log.values, ["A#1 503", "B#1 503", "C#1 503"], "asked in order, then the policy retried")
        XCTAssertEqual(server.requests(path: "/flaky").count, 2)
    }

    func testTheFirstDecisionWinsAndTheRestAreNotAsked() {
        let script = Script([.status(500), .json("{}")])
        server.route("GET", "/flaky") { _ in script.next() }
        let log = Collector<String>()
        let host = makeHost()
        host.interceptors = [
            ClosureInterceptor(retry: { _, context, completion in
                log.append("first#\(context.attempt)")
                completion(context.attempt == 1 ? .retry(after: 0) : .pass)
            }),
            passing("second", log: log),
        ]
        XCTAssertNotNil(value(of: send(TestRequest("/flaky"), host: host)))
        XCTAssertEqual(log.values, ["first#1"], "a success asks nobody; the second was not asked after the first decided")
    }

    func testRetryCountCountsTheDecisionsOfAnInterceptorsType() {
        server.route("GET", "/down") { _ in .status(503) }
        let counts = Collector<Int>()
        let host = makeHost()
        host.interceptors = [ClosureInterceptor(retry: { _, context, completion in
            let count = context.retryCount(decidedBy: ClosureInterceptor())
            counts.append(count)
            completion(count < 2 ? .retry(after: 0) : .pass)
        })]
        let error = failure(of: send(TestRequest("/down"), host: host))
        XCTAssertEqual(error?.attempts, 3)
        XCTAssertEqual(counts.values, [0, 1, 2])
    }

    func testCancelWhileADecisionIsPendingEndsOnceAsCancelled() {
        server.route("GET", "/down") { _ in .status(503) }
        let host = makeHost()
        let asked = expectation(description: "asked")
        let answered = expectation(description: "answered")
        host.interceptors = [ClosureInterceptor(retry: { _, _, completion in
            asked.fulfill()
            DispatchQueue.global().asyncAfter(deadline: .now() + 1.5) {
                completion(.retry(after: 0))
                answered.fulfill()
            }
        })]
        let service = EasyNetworkService(host)
        let outcomes = Collector<NetworkError?>()
        let ended = expectation(description: "ended")
        service.request(TestRequest("/down"), success: { _ in
            outcomes.append(nil)
            ended.fulfill()
        }, failure: { error in
            outcomes.append(error)
            ended.fulfill()
        })
        wait(for: [asked], timeout: 10)
        service.cancel()
        wait(for: [ended], timeout: 1.0)  // at once, not after the decision (1.5 s)
        wait(for: [answered], timeout: 10)
        callbackQueue.sync {}
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(outcomes.count, 1, "one callback")
        XCTAssertEqual(outcomes.values.first??.isCancelled, true)
        XCTAssertEqual(server.requests(path: "/down").count, 1, "the late .retry sent nothing")
    }

    func testARetryPolicyAmongTheInterceptorsRetriesLikeAnyInterceptor() {
        let script = Script([.status(503), .json("{}")])
        server.route("GET", "/flaky") { _ in script.next() }
        let host = makeHost()  // host.retryPolicy stays .none
        host.interceptors = [RetryPolicy(maxAttempts: 2, baseDelay: 0.01)]
        XCTAssertNotNil(value(of: send(TestRequest("/flaky"), host: host)))
        XCTAssertEqual(server.requests(path: "/flaky").count, 2)
    }

    func testARequestThatRetriesOnAHostWithoutTheRetryEngineFailsBeforeAnythingIsSent() {
        server.route("GET", "/flaky") { _ in .status(503) }
        struct Retrying: BaseAPIRequest {
            var api: String { "/flaky" }
            var retryPolicy: RetryPolicy? { RetryPolicy(maxAttempts: 3, baseDelay: 0.01) }
        }
        struct Once: BaseAPIRequest {
            var api: String { "/flaky" }
            var retryPolicy: RetryPolicy? { RetryPolicy.none }
        }
        let host = makeHost()
        let error = failure(of: send(Retrying(), host: host))
        XCTAssertEqual(error?.kind, .invalidRequest)
        XCTAssertEqual(error?.attempts, 0)
        XCTAssertEqual(
            error?.message,
            "the request's retryPolicy retries (maxAttempts 3), but its host has no retry engine: "
                + "import EasyNetworkRetry and set host.retryPolicy (.none keeps the host's other requests to one attempt)"
        )
        XCTAssertEqual(server.requests(path: "/flaky").count, 0, "nothing sent, not even once")
        XCTAssertEqual(failure(of: send(Once(), host: host))?.statusCode, 503, "a policy that never retries needs no engine")
        XCTAssertEqual(server.requests(path: "/flaky").count, 1)
        host.retryPolicy = .none  // the engine, which decides the request's own policy
        XCTAssertEqual(failure(of: send(Retrying(), host: host))?.attempts, 3)
        XCTAssertEqual(server.requests(path: "/flaky").count, 4)
    }

    func testTheTokenDecidesFirstAndReplaysOnce() {
        server.route("GET", "/me") { _ in .status(401) }
        let refreshes = Collector<Int>()
        let asked = Collector<String>()
        let host = makeHost()
        host.authenticator = TokenAuthenticator(token: "old") { done in
            refreshes.append(1)
            done(.success("new"))
        }
        host.interceptors = [ClosureInterceptor(retry: { error, context, completion in
            asked.append("#\(context.attempt) \(error.statusCode ?? 0)")
            completion(.pass)
        })]
        let error = failure(of: send(TestRequest("/me"), host: host))
        XCTAssertEqual(error?.statusCode, 401)
        XCTAssertEqual(error?.attempts, 2)
        XCTAssertEqual(refreshes.count, 1)
        XCTAssertEqual(asked.values, ["#2 401"], "the token decided the first 401 (refresh, replay) and passed on the second")
        XCTAssertEqual(server.requests(path: "/me").map { $0.header("Authorization") }, ["Bearer old", "Bearer new"])
    }
}
