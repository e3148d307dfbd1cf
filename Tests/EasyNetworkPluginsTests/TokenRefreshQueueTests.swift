@testable import EasyNetwork
@testable import EasyNetworkPlugins
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif


/// The refresh call as the EasyNetworkPlugins documentation writes it: typed, sent with `queue.send`, no token on it.
struct TokenRefreshCall: APIRequest {
    typealias Response = TokenReply
    var api = "/refresh"
    var method: NetworkService.Method { .post }
    var requiresAuthentication: Bool { false }
}

struct TokenReply: Decodable, Sendable {
    let token: String
}

/// The documented refresh pattern: the refresh is sent with `queue.send` from inside the
/// refresh closure, on the queue whose every slot may be held by requests waiting for it.
final class TokenRefreshQueueTests: ServerTestCase {
    private let backend = TokenBackend()

    override func setUpWithError() throws {
        try super.setUpWithError()
        backend.install(on: server)
        server.route("POST", "/refresh-never") { _ in
            .delayed(20, .json(#"{"token": "late"}"#))
        }
    }

    private func makeWideHost() -> HostConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        let host = HostConfiguration(baseURL: server.baseURL, sessionConfiguration: configuration)
        host.callbackQueue = callbackQueue
        return host
    }

    /// A host whose authenticator is exactly the documented closure, refreshing through `queue`.
    private func makeReadmeHost(refreshingOn queue: NetworkQueue, refreshPath: String = "/refresh") -> HostConfiguration {
        let host = makeWideHost()
        host.authenticator = TokenAuthenticator(token: "t0") { [weak host] in
            guard let host else { throw CancellationError() }
            return try await queue.send(TokenRefreshCall(api: refreshPath), configuration: host).token
        }
        return host
    }

    private func protectedOperations(_ count: Int, host: HostConfiguration, round: Int = 0) -> [RequestOperation<Any?>] {
        (0..<count).map { index in
            RequestOperation(request: TestRequest("/protected/\(round)/\(index)"), configuration: host, responseDecoder: .json)
        }
    }

    /// Adds `operations` to `queue` at once and waits (bounded) for every callback.
    @discardableResult
    private func runAll(_ operations: [RequestOperation<Any?>], on queue: NetworkQueue, timeout: TimeInterval = 10) -> [Result<Any?, NetworkError>] {
        let done = expectation(description: "every operation called back")
        done.expectedFulfillmentCount = operations.count
        for operation in operations {
            operation.completion = { _ in done.fulfill() }
        }
        queue.addOperations(operations, waitUntilFinished: false)
        wait(for: [done], timeout: timeout)
        callbackQueue.sync {}
        return operations.compactMap { $0.result }
    }

    private func successes(_ results: [Result<Any?, NetworkError>]) -> Int {
        results.filter { if case .success = $0 { return true } else { return false } }.count
    }

    /// One round with as many requests as the queue is wide, then one with more: every
    /// request succeeds with the new token and each round refreshes exactly once.
    private func checkReadmePattern(width: Int, file: StaticString = #filePath, line: UInt = #line) {
        let queue = NetworkQueue(maxConcurrentOperationCount: width)
        let host = makeReadmeHost(refreshingOn: queue)
        // Free whatever a deadlock left parked, so a failure never hangs the suite.
        defer { queue.cancelAllOperations() }
        for (round, count) in [width, 4 * width].enumerated() {
            if round > 0 { backend.expire() }
            let results = runAll(protectedOperations(count, host: host, round: round), on: queue)
            guard results.count == count else {
                return XCTFail("width \(width), round \(round): \(results.count) of \(count) requests ended in 10 s (deadlock)", file: file, line: line)
            }
            XCTAssertEqual(successes(results), count, "width \(width), round \(round): every request succeeds", file: file, line: line)
            XCTAssertEqual(backend.refreshCount, round + 1, "width \(width), round \(round): one refresh", file: file, line: line)
            XCTAssertEqual(host.authenticator?.token, "t\(round + 1)", file: file, line: line)
        }
        XCTAssertEqual(server.requests(path: "/refresh").count, 2, "one refresh request per round", file: file, line: line)
        let replayed = server.requests.filter { $0.path.hasPrefix("/protected/1/") && $0.header("Authorization") == "Bearer t2" }
        XCTAssertEqual(replayed.count, 4 * width, "every request of round 1 replays with the new token", file: file, line: line)
    }

    func testReadmePatternOnAQueueOfWidth1() {
        checkReadmePattern(width: 1)
    }

    func testReadmePatternOnAQueueOfWidth2() {
        checkReadmePattern(width: 2)
    }

    func testReadmePatternOnAQueueOfWidth4() {
        checkReadmePattern(width: 4)
    }

    /// The refresh goes through a second queue whose only slot is held by a request that
    /// waits for that refresh.
    func testRefreshThroughAnotherQueueThatIsFull() {
        let main = NetworkQueue(maxConcurrentOperationCount: 2)
        let side = NetworkQueue(maxConcurrentOperationCount: 1)
        let host = makeReadmeHost(refreshingOn: side)
        let onMain = protectedOperations(2, host: host)
        let onSide = protectedOperations(1, host: host, round: 1)
        let done = expectation(description: "every operation called back")
        done.expectedFulfillmentCount = 3
        for operation in onMain + onSide {
            operation.completion = { _ in done.fulfill() }
        }
        defer {
            main.cancelAllOperations()
            side.cancelAllOperations()
        }
        main.addOperations(onMain, waitUntilFinished: false)
        side.addOperations(onSide, waitUntilFinished: false)
        wait(for: [done], timeout: 10)
        callbackQueue.sync {}
        XCTAssertEqual(successes((onMain + onSide).compactMap { $0.result }), 3)
        XCTAssertEqual(server.requests(path: "/refresh").count, 1)
    }

    /// The completion form whose refresh hops to another thread before it sends with
    /// `queue.send`: nothing marks that send as the refresh, yet it must get a slot.
    func testCompletionRefreshThatHopsThreadsStillGetsASlot() {
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        let host = makeWideHost()
        host.authenticator = TokenAuthenticator(token: "t0") { [weak host] done in
            let weakHost = WeakBox(host)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
                guard let host = weakHost.value else { return done(.failure(CancellationError())) }
                queue.send(TokenRefreshCall(), configuration: host) { result in
                    done(result.map(\.token).mapError { $0 })
                }
            }
        }
        defer { queue.cancelAllOperations() }
        let results = runAll(protectedOperations(2, host: host), on: queue)
        XCTAssertEqual(successes(results), 2)
        XCTAssertEqual(server.requests(path: "/refresh").count, 1)
    }

    /// Eight simultaneous 401s on a queue of width 2: one refresh, eight replays.
    func testEight401sOnAQueueOfWidth2RefreshOnce() {
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        defer { queue.cancelAllOperations() }
        let host = makeReadmeHost(refreshingOn: queue)
        let results = runAll(protectedOperations(8, host: host), on: queue)
        XCTAssertEqual(results.count, 8, "every request ends")
        XCTAssertEqual(successes(results), 8)
        XCTAssertEqual(server.requests(path: "/refresh").count, 1)
        XCTAssertEqual(server.requests.filter { $0.header("Authorization") == "Bearer t1" }.count, 8)
        XCTAssertEqual(queue.operationQueue.maxConcurrentOperationCount, 2, "the lent slots are given back")
    }

    /// The documented refresh whose request never answers: every waiter fails with a
    /// timeout of kind `authentication` after the refresh timeout, and the refresh
    /// request is cancelled.
    func testRefreshThatNeverAnswersFailsTheWaitersAfterTheRefreshTimeout() {
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        defer { queue.cancelAllOperations() }
        let host = makeWideHost()
        host.authenticator = TokenAuthenticator(token: "t0", refreshTimeout: 0.5) { [weak host] in
            guard let host else { throw CancellationError() }
            return try await queue.send(TokenRefreshCall(api: "/refresh-never"), configuration: host).token
        }
        let started = ProcessInfo.processInfo.systemUptime
        let results = runAll(protectedOperations(4, host: host), on: queue)
        let elapsed = ProcessInfo.processInfo.systemUptime - started
        XCTAssertEqual(results.count, 4, "every waiter ends")
        for result in results {
            guard case .failure(let error) = result else { return XCTFail("must fail") }
            XCTAssertEqual(error.kind, .authentication)
            XCTAssertTrue(error.isTimeout, "\(error)")
        }
        XCTAssertGreaterThanOrEqual(elapsed, 0.5)
        XCTAssertLessThan(elapsed, 8, "the refresh timeout, not the server's 20 s")
        let drained = expectation(description: "the refresh operation was cancelled")
        DispatchQueue.global().async {
            queue.waitUntilAllOperationsAreFinished()
            drained.fulfill()
        }
        wait(for: [drained], timeout: 8)
    }

    /// A request cancelled while it waits for the refresh ends at once and gives its
    /// slot back; the queue's own limit is unchanged throughout.
    func testCancelledWhileParkedGivesTheSlotBack() {
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        defer { queue.cancelAllOperations() }
        let host = makeWideHost()
        host.authenticator = TokenAuthenticator(token: "t0", refreshTimeout: 20) { _ in }
        let operation = protectedOperations(1, host: host)[0]
        let done = expectation(description: "cancelled")
        operation.completion = { _ in done.fulfill() }
        queue.addOperation(operation)
        let parked = expectation(description: "parked: the queue runs one more")
        DispatchQueue.global().async {
            let until = ProcessInfo.processInfo.systemUptime + 8
            while queue.operationQueue.maxConcurrentOperationCount != 2, ProcessInfo.processInfo.systemUptime < until {
                usleep(10_000)
            }
            parked.fulfill()
        }
        wait(for: [parked], timeout: 10)
        XCTAssertEqual(queue.operationQueue.maxConcurrentOperationCount, 2)
        XCTAssertEqual(queue.maxConcurrentOperationCount, 1, "the limit callers see stays theirs")
        operation.cancel()
        wait(for: [done], timeout: 5)
        callbackQueue.sync {}
        XCTAssertEqual(operation.result.map { if case .failure(let error) = $0 { return error.isCancelled } else { return false } }, true)
        XCTAssertEqual(queue.operationQueue.maxConcurrentOperationCount, 1, "the slot came back with the cancellation")
        queue.maxConcurrentOperationCount = 3
        XCTAssertEqual(queue.operationQueue.maxConcurrentOperationCount, 3)
    }

    /// Eight requests parked for one refresh do not all replay at once: they re-enter
    /// the queue, which never has more requests on the network than its limit.
    func testReplaysAfterARefreshStayWithinTheQueueLimit() {
        backend.answerAccepted(after: 0.2)
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        defer { queue.cancelAllOperations() }
        let counter = InFlightCounter()
        let host = makeReadmeHost(refreshingOn: queue)
        host.interceptors = [counter]
        let results = runAll(protectedOperations(8, host: host), on: queue)
        XCTAssertEqual(successes(results), 8)
        XCTAssertEqual(server.requests(path: "/refresh").count, 1)
        XCTAssertLessThanOrEqual(counter.maxInFlight, 2, "requests on the network at once")
        XCTAssertEqual(queue.operationQueue.maxConcurrentOperationCount, 2, "the lent slots are given back")
    }

    /// A queue-wide cancel while parked requests wait to re-enter the queue after a refresh
    /// (their turn queued behind a slow replay) strands none of them: each calls back, and
    /// every lent slot comes back to the queue.
    func testQueueWideCancelWhileRequestsReenterGivesEverySlotBack() {
        server.route("GET", prefix: "/slow") { request in
            request.header("Authorization") == "Bearer t1"
                ? .delayed(5, .json(#"{"ok": true}"#))
                : .delayed(0.1, .json(#"{"error": "token expired"}"#, status: 401))
        }
        let refresh = Protected<(@Sendable (Result<String, any Error>) -> Void)?>(nil)
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        defer { queue.cancelAllOperations() }
        let host = makeWideHost()
        host.authenticator = TokenAuthenticator(token: "t0", refreshTimeout: 20) { done in refresh.write { $0 = done } }
        let operations = (0..<3).map { RequestOperation(request: TestRequest("/slow/\($0)"), configuration: host, responseDecoder: .json) }
        let done = expectation(description: "every operation called back")
        done.expectedFulfillmentCount = 3
        for operation in operations {
            operation.completion = { _ in done.fulfill() }
        }
        queue.addOperations(operations, waitUntilFinished: false)
        // All three parked on the one refresh: the queue runs its limit and three lent slots.
        XCTAssertTrue(poll { queue.operationQueue.maxConcurrentOperationCount == 4 }, "three requests parked")
        refresh.read { $0 }?(.success("t1"))
        // One replays (for 5 s) in the one free slot; the other two wait for theirs.
        XCTAssertTrue(poll { self.server.requests.contains { $0.header("Authorization") == "Bearer t1" } }, "a replay was sent")
        usleep(100_000)
        XCTAssertEqual(server.requests.filter { $0.header("Authorization") == "Bearer t1" }.count, 1, "the others wait for a slot")
        queue.cancelAllOperations()
        wait(for: [done], timeout: 5)
        XCTAssertTrue(poll { queue.operationQueue.operationCount == 0 }, "the queue drains")
        // A cancelled re-entry gives its slot back in its completion block, which the queue
        // runs after the operation has left it: polled, not read once.
        XCTAssertTrue(poll { queue.operationQueue.maxConcurrentOperationCount == 1 }, "every lent slot came back: \(queue.operationQueue.maxConcurrentOperationCount)")
    }

    /// Whether `condition` holds within 8 s (checked every 10 ms).
    private func poll(_ condition: () -> Bool) -> Bool {
        let until = ProcessInfo.processInfo.systemUptime + 8
        while !condition() {
            if ProcessInfo.processInfo.systemUptime > until { return false }
            usleep(10_000)
        }
        return true
    }

    /// The completion form whose refresh never calls back at all.
    func testSilentCompletionRefreshTimesOut() {
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        defer { queue.cancelAllOperations() }
        let host = makeWideHost()
        host.authenticator = TokenAuthenticator(token: "t0", refreshTimeout: 0.3) { _ in }
        let results = runAll(protectedOperations(3, host: host), on: queue)
        XCTAssertEqual(results.count, 3)
        XCTAssertTrue(results.allSatisfy { if case .failure(let error) = $0 { return error.kind == .authentication && error.isTimeout } else { return false } })
    }
}

/// Counts the attempts on the network at once (sent, no answer yet).
final class InFlightCounter: RequestInterceptor {
    private let counts = Protected<(now: Int, max: Int)>((0, 0))

    var maxInFlight: Int { counts.read { $0.max } }

    func willSend(_ urlRequest: URLRequest, context: RequestContext) {
        counts.write { counts in
            counts.now += 1
            counts.max = max(counts.max, counts.now)
        }
    }

    func didReceive(_ response: HTTPURLResponse?, data: Data, error: (any Error)?, context: RequestContext) {
        counts.write { $0.now -= 1 }
    }
}

/// A weak reference a `@Sendable` closure may carry to another thread.
final class WeakBox<Value: AnyObject & Sendable>: Sendable {
    weak let value: Value?
    init(_ value: Value?) { self.value = value }
}
