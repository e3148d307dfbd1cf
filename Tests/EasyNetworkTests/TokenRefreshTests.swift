@testable import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server side of a token: which token is valid, how many refreshes happened.
final class TokenBackend: @unchecked Sendable {
    private let lock = NSLock()
    /// Until the first refresh no client token is valid; refresh n issues "t<n>".
    private var validToken = "not-issued-yet"
    private var refreshes = 0
    private var refreshFails = false
    private var alwaysUnauthorized = false
    private var acceptedDelay: TimeInterval = 0

    func configure(failRefresh: Bool = false, alwaysUnauthorized: Bool = false) {
        lock.lock(); defer { lock.unlock() }
        refreshFails = failRefresh
        self.alwaysUnauthorized = alwaysUnauthorized
    }

    var refreshCount: Int { lock.lock(); defer { lock.unlock() }; return refreshes }

    /// Requests with the valid token are answered after `delay` seconds.
    func answerAccepted(after delay: TimeInterval) {
        lock.lock(); defer { lock.unlock() }
        acceptedDelay = delay
    }

    /// The server forgets the valid token: every request gets 401 until the next refresh.
    func expire() {
        lock.lock(); defer { lock.unlock() }
        validToken = "expired-\(refreshes)"
    }

    func install(on server: LoopbackServer) {
        server.route("GET", prefix: "/protected") { [self] request in
            lock.lock(); defer { lock.unlock() }
            if !alwaysUnauthorized, request.header("Authorization") == "Bearer \(validToken)" {
                return acceptedDelay > 0 ? .delayed(acceptedDelay, .json(#"{"ok": true}"#)) : .json(#"{"ok": true}"#)
            }
            // A little late, so that requests sent together all get their 401 before the refresh.
            return .delayed(0.2, .json(#"{"error": "token expired"}"#, status: 401, headers: ["WWW-Authenticate": #"Bearer realm="api""#]))
        }
        server.route("POST", "/refresh") { [self] _ in
            lock.lock(); defer { lock.unlock() }
            if refreshFails { return .json(#"{"error": "refresh token revoked"}"#, status: 500) }
            refreshes += 1
            validToken = "t\(refreshes)"
            return .json(#"{"token": "\#(validToken)"}"#)
        }
    }
}

struct RefreshRequest: BaseAPIRequest {
    var api: String { "/refresh" }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { ["refreshToken": "r"] }
    var headers: [String: String]? { nil }
    var requiresAuthentication: Bool { false }
}

final class TokenRefreshTests: ServerTestCase {
    private let backend = TokenBackend()

    override func setUpWithError() throws {
        try super.setUpWithError()
        backend.install(on: server)
    }

    /// A host whose authenticator refreshes through the host itself (the refresh
    /// request opts out of authentication).
    private func makeAuthenticatedHost(token: String? = "t0") -> HostConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        let host = HostConfiguration(baseURL: server.baseURL, sessionConfiguration: configuration)
        host.callbackQueue = callbackQueue
        let refreshHost = makeHost()
        host.authenticator = TokenAuthenticator(token: token) { done in
            EasyNetworkService(refreshHost).request(RefreshRequest(), success: { json in
                if let token = (json as? [String: Any])?["token"] as? String {
                    done(.success(token))
                } else {
                    done(.failure(NetworkError(kind: .decoding, message: "no token")))
                }
            }, failure: { error in done(.failure(error)) })
        }
        return host
    }

    private func runConcurrently(_ count: Int, host: HostConfiguration) -> [Result<Any?, NetworkError>] {
        let queue = NetworkQueue(maxConcurrentOperationCount: count)
        let ops = (0..<count).map { index in
            RequestOperation(request: TestRequest("/protected/\(index)"), configuration: host, responseDecoder: .json)
        }
        queue.addOperations(ops, waitUntilFinished: false)
        ops.forEach { waitUntilFinished($0, timeout: 20) }
        callbackQueue.sync {}
        return ops.compactMap { $0.result }
    }

    func testFiftyConcurrent401sCauseExactlyOneRefreshAndAllReplayOnce() {
        let host = makeAuthenticatedHost()
        let results = runConcurrently(50, host: host)
        XCTAssertEqual(results.count, 50)
        XCTAssertEqual(results.filter { if case .success = $0 { return true } else { return false } }.count, 50)
        XCTAssertEqual(backend.refreshCount, 1)
        let protected = server.requests.filter { $0.path.hasPrefix("/protected") }
        XCTAssertEqual(protected.filter { $0.header("Authorization") == "Bearer t0" }.count, 50)
        XCTAssertEqual(protected.filter { $0.header("Authorization") == "Bearer t1" }.count, 50)
        XCTAssertEqual(protected.count, 100, "each request replays exactly once")
        XCTAssertEqual(host.authenticator?.token, "t1")
        XCTAssertNil(server.requests(path: "/refresh").first?.header("Authorization"), "the refresh itself carries no token")
    }

    func testRequestWithAnOlderTokenReplaysWithoutRefreshing() {
        let host = makeAuthenticatedHost()
        _ = runConcurrently(1, host: host)
        XCTAssertEqual(backend.refreshCount, 1)
        host.authenticator?.setToken("t1")   // same token the server accepts
        let results = runConcurrently(5, host: host)
        XCTAssertEqual(results.filter { if case .success = $0 { return true } else { return false } }.count, 5)
        XCTAssertEqual(backend.refreshCount, 1)
    }

    func testFailedRefreshFailsEveryWaiterAndPostsTheSignalOnce() {
        backend.configure(failRefresh: true)
        let host = makeAuthenticatedHost()
        let signals = Collector<NetworkError>()
        let observer = NotificationCenter.default.addObserver(forName: HostConfiguration.unauthorizedOperationNotification, object: host, queue: nil) { note in
            if let error = note.userInfo?["error"] as? NetworkError { signals.append(error) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let results = runConcurrently(20, host: host)
        XCTAssertEqual(results.count, 20)
        for result in results {
            guard case .failure(let error) = result else { return XCTFail("must fail") }
            XCTAssertEqual(error.kind, .authentication)
        }
        XCTAssertEqual(server.requests(path: "/refresh").count, 1, "one refresh for all waiters")
        RunLoop.current.run(until: Date().addingTimeInterval(0.1))
        XCTAssertEqual(signals.count, 1)
        XCTAssertEqual(signals.values.first?.kind, .authentication)
    }

    func testServerThatAlwaysAnswers401CausesBoundedRefreshesAndEveryRequestEnds() {
        backend.configure(alwaysUnauthorized: true)
        let host = makeAuthenticatedHost()
        for _ in 0..<4 {
            let results = runConcurrently(10, host: host)
            XCTAssertEqual(results.count, 10, "every request ends")
            XCTAssertTrue(results.allSatisfy { if case .failure = $0 { return true } else { return false } })
        }
        XCTAssertLessThanOrEqual(server.requests(path: "/refresh").count, 3, "rate-limited: at most 3 refreshes in 30 s")
        XCTAssertGreaterThanOrEqual(server.requests(path: "/refresh").count, 1)
    }

    func testMissingTokenRefreshesBeforeTheFirstSend() {
        let host = makeAuthenticatedHost(token: nil)
        let results = runConcurrently(3, host: host)
        XCTAssertEqual(results.filter { if case .success = $0 { return true } else { return false } }.count, 3)
        XCTAssertEqual(backend.refreshCount, 1)
        XCTAssertEqual(server.requests.filter { $0.path.hasPrefix("/protected") }.count, 3)
    }

    func testRequestThatOptsOutOfAuthenticationCarriesNoToken() {
        let host = makeAuthenticatedHost()
        _ = send(RefreshRequest(), host: host)
        XCTAssertNil(server.requests(path: "/refresh").first?.header("Authorization"))
    }

    func testUnauthorizedBusinessCodeAlsoRefreshes() {
        let host = makeAuthenticatedHost()
        host.envelope = .codeEquals(0, unauthorizedCodes: ["40101"])
        server.route("GET", "/biz-protected") { request in
            request.header("Authorization") == "Bearer t1"
                ? .json(#"{"code": 0, "data": {"ok": true}}"#)
                : .json(#"{"code": 40101, "msg": "token expired"}"#)
        }
        let result = send(TestRequest("/biz-protected"), host: host)
        XCTAssertEqual((value(of: result) as? [String: Any])?["ok"] as? Bool, true)
        XCTAssertEqual(backend.refreshCount, 1)
    }
}

/// The refresh call as the README writes it: typed, sent with `queue.send`, no token on it.
struct TokenRefreshCall: APIRequest {
    typealias Response = TokenReply
    var api = "/refresh"
    var method: NetworkService.Method { .post }
    var requiresAuthentication: Bool { false }
}

struct TokenReply: Decodable, Sendable {
    let token: String
}

/// The README's refresh pattern: the refresh is sent with `queue.send` from inside the
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

    /// A host whose authenticator is exactly the README's closure, refreshing through `queue`.
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

    /// The README's refresh whose request never answers: every waiter fails with a
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

/// The refresh window is measured on a monotonic clock, never on the wall clock.
final class TokenAuthenticatorClockTests: XCTestCase {
    func testRefreshWindowUsesTheInjectedMonotonicClock() {
        let clock = Protected<TimeInterval>(1_000)
        let refreshes = Protected(0)
        let authenticator = TokenAuthenticator(token: "t0", maxRefreshes: 1, refreshWindow: 30) { done in
            let count = refreshes.write { $0 += 1; return $0 }
            done(.success("t\(count)"))
        }
        authenticator.uptime = { clock.read { $0 } }
        func unauthorized(_ generation: Int) -> Result<TokenAuthenticator.Credential, NetworkError>? {
            let result = Protected<Result<TokenAuthenticator.Credential, NetworkError>?>(nil)
            authenticator.unauthorized(sentWith: generation) { outcome in result.write { $0 = outcome } }
            return result.read { $0 }
        }
        guard case .success(let first)? = unauthorized(0) else { return XCTFail("the first refresh runs") }
        clock.write { $0 += 29 }
        guard case .failure? = unauthorized(first.generation) else { return XCTFail("a second refresh within 30 s is refused") }
        clock.write { $0 += 2 }
        guard case .success? = unauthorized(first.generation) else { return XCTFail("past the window the refresh runs again") }
        XCTAssertEqual(refreshes.read { $0 }, 2)
    }

    func testOutOfRangeRefreshTimeoutsNeitherCrashNorFireAtOnce() {
        for timeout in [0, -1, .nan, .infinity, .greatestFiniteMagnitude] as [TimeInterval] {
            let authenticator = TokenAuthenticator(token: "t0", refreshTimeout: timeout) { _ in }
            let outcome = Protected<Result<TokenAuthenticator.Credential, NetworkError>?>(nil)
            authenticator.unauthorized(sentWith: 0) { result in outcome.write { $0 = result } }
            usleep(50_000)
            XCTAssertNil(outcome.read { $0 }, "timeout \(timeout): still waiting")
        }
    }

    func testDefaultClockIsMonotonic() {
        let authenticator = TokenAuthenticator(token: "t0") { done in done(.success("t1")) }
        let before = ProcessInfo.processInfo.systemUptime
        let reading = authenticator.uptime()
        XCTAssertEqual(reading, before, accuracy: 1, "the system uptime, not seconds since 1970")
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
