import EasyNetwork
import EasyNetworkOrchestration
import EasyNetworkTesting
import Foundation
import XCTest

struct Session: Decodable, Sendable { let token: String }
struct Account: Decodable, Sendable { let id: Int; let plan: String }
struct Invoice: Decodable, Sendable { let total: Int }

struct SignInStep: APIRequest {
    typealias Response = Session
    var api: String { "/chain/sign-in" }
}

struct AccountStep: APIRequest {
    typealias Response = Account
    let token: String
    var api: String { "/chain/account" }
    var params: [String: Any]? { ["token": token] }
}

struct InvoiceStep: APIRequest {
    typealias Response = Invoice
    let accountID: Int
    var api: String { "/chain/invoice" }
    var params: [String: Any]? { ["account": accountID] }
}

struct Numbered: APIRequest {
    typealias Response = Int
    let index: Int
    let delayMS: Int
    let fails: Bool
    var api: String { fails ? "/status/500" : "/number" }
    var params: [String: Any]? { ["i": index, "delay": delayMS] }
}

final class OrchestrationTests: ServerTestCase {
    private let queue = NetworkQueue(maxConcurrentOperationCount: 8)

    override func setUpWithError() throws {
        try super.setUpWithError()
        server.route("GET", "/chain/sign-in") { _ in .json(#"{"token": "tk-1"}"#) }
        server.route("GET", "/chain/account") { request in
            request.queryItems.first?.value == "tk-1" ? .json(#"{"id": 42, "plan": "pro"}"#) : .status(403)
        }
        server.route("GET", "/chain/invoice") { request in .json(#"{"total": \#(request.queryItems.first?.value ?? "0")00}"#) }
        server.route("GET", "/number") { request in
            let items = Dictionary(uniqueKeysWithValues: request.queryItems.map { ($0.name, $0.value ?? "") })
            let reply = LoopbackReply.json(items["i"] ?? "0")
            let delay = Double(items["delay"] ?? "0") ?? 0
            return delay > 0 ? .delayed(delay / 1000, reply) : reply
        }
    }

    private func waitFor<T>(_ collector: Collector<T>, count: Int, timeout: TimeInterval = 10) {
        let deadline = Date().addingTimeInterval(timeout)
        while collector.count < count && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.005))
        }
    }

    // MARK: chains

    func testThreeStepChainPassesValues() throws {
        let results = Collector<Result<ChainOutcome<Invoice>, ChainError>>()
        RequestChain(SignInStep(), configuration: makeHost())
            .then { session in AccountStep(token: session.token) }
            .then { account in InvoiceStep(accountID: account.id) }
            .start(on: queue) { results.append($0) }
        waitFor(results, count: 1)
        let outcome = try XCTUnwrap(results.values.first).get()
        XCTAssertEqual(outcome.last?.total, 4200)
        XCTAssertEqual(outcome.results.count, 3)
        XCTAssertEqual((outcome.results[1] as? Account)?.plan, "pro")
        XCTAssertEqual(server.requests.map(\.path), ["/chain/sign-in", "/chain/account", "/chain/invoice"])
        XCTAssertEqual(server.requests.map { $0.query ?? "" }, ["", "token=tk-1", "account=42"])
    }

    func testFailureAtStepTwoStopsTheChainAndNamesTheStep() {
        server.route("GET", "/chain/account") { _ in .status(503) }
        let results = Collector<Result<ChainOutcome<Invoice>, ChainError>>()
        RequestChain(SignInStep(), configuration: makeHost())
            .then { AccountStep(token: $0.token) }
            .then { InvoiceStep(accountID: $0.id) }
            .start(on: queue) { results.append($0) }
        waitFor(results, count: 1)
        guard case .failure(let error)? = results.values.first else { return XCTFail("must fail") }
        XCTAssertEqual(error.step, 1)
        XCTAssertEqual(error.error.statusCode, 503)
        XCTAssertTrue(error.localizedDescription.contains("Step 2"))
        // `print(error)` and interpolation show the same sentence, not the error's storage.
        XCTAssertEqual("\(error)", error.localizedDescription)
        XCTAssertEqual(server.requests(path: "/chain/invoice").count, 0)
    }

    func testCancelMidChain() {
        server.route("GET", "/chain/account") { _ in .delayed(3, .json(#"{"id": 1, "plan": "x"}"#)) }
        let results = Collector<Result<ChainOutcome<Invoice>, ChainError>>()
        let handle = RequestChain(SignInStep(), configuration: makeHost())
            .then { AccountStep(token: $0.token) }
            .then { InvoiceStep(accountID: $0.id) }
            .start(on: queue) { results.append($0) }
        waitForRequests(path: "/chain/account", count: 1)
        let started = Date()
        handle.cancel()
        waitFor(results, count: 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        guard case .failure(let error)? = results.values.first else { return XCTFail("must be cancelled") }
        XCTAssertTrue(error.isCancelled)
        XCTAssertEqual(error.step, 1)
        XCTAssertEqual(server.requests(path: "/chain/invoice").count, 0)
        RunLoop.current.run(until: Date().addingTimeInterval(0.05))
        XCTAssertEqual(results.count, 1)
    }

    func testAStepCanEndTheChainEarly() throws {
        let results = Collector<Result<ChainOutcome<Invoice>, ChainError>>()
        RequestChain(SignInStep(), configuration: makeHost())
            .then { AccountStep(token: $0.token) }
            .then { account in account.plan == "free" ? InvoiceStep(accountID: account.id) : nil }
            .start(on: queue) { results.append($0) }
        waitFor(results, count: 1)
        let outcome = try XCTUnwrap(results.values.first).get()
        XCTAssertTrue(outcome.endedEarly)
        XCTAssertNil(outcome.last)
        XCTAssertEqual(outcome.results.count, 2)
        XCTAssertEqual(server.requests(path: "/chain/invoice").count, 0)
    }

    func testAsyncChain() async throws {
        let outcome = try await RequestChain(SignInStep(), configuration: makeHost())
            .then { AccountStep(token: $0.token) }
            .run(on: queue)
        XCTAssertEqual(outcome.last?.id, 42)
    }

    // MARK: batches

    private func batch(policy: RequestBatch<Int>.Policy) -> (RequestBatch<Int>, Collector<[Result<Int, NetworkError>]>) {
        let requests = (0..<100).map { Numbered(index: $0, delayMS: $0 % 7, fails: $0 % 10 == 3) }
        let batch = RequestBatch(requests: requests, configuration: makeHost(), policy: policy)
        let done = Collector<[Result<Int, NetworkError>]>()
        batch.completion = { done.append($0) }
        return (batch, done)
    }

    func testSettleAllBatchReportsEveryOutcomeInOrder() {
        let (batch, done) = self.batch(policy: .settleAll)
        let progress = Collector<Int>()
        batch.onProgress = { completed, total in
            XCTAssertEqual(total, 100)
            progress.append(completed)
        }
        batch.start(on: queue)
        waitFor(done, count: 1)
        let results = done.values.first ?? []
        XCTAssertEqual(results.count, 100)
        for (index, result) in results.enumerated() {
            switch result {
            case .success(let value): XCTAssertEqual(value, index)
            case .failure(let error): XCTAssertEqual(index % 10, 3, "\(index): \(error)")
            }
        }
        XCTAssertEqual(results.filter { if case .failure = $0 { return true } else { return false } }.count, 10)
        XCTAssertEqual(progress.values, Array(1...100))
        XCTAssertEqual(batch.progress.fractionCompleted, 1)
    }

    func testFailFastBatchCancelsTheRest() {
        let (batch, done) = self.batch(policy: .failFast)
        batch.start(on: NetworkQueue(maxConcurrentOperationCount: 2))
        waitFor(done, count: 1)
        let results = done.values.first ?? []
        XCTAssertEqual(results.count, 100)
        let cancelled = results.filter { if case .failure(let e) = $0 { return e.isCancelled } else { return false } }.count
        XCTAssertGreaterThan(cancelled, 80, "most members never ran")
        XCTAssertLessThan(server.requests.count, 20)
    }

    func testResultsArriveInCompletionOrder() {
        let delays = [600, 0, 400, 200]  // 200 ms apart: a loaded machine may delay a response stage that long
        let requests = delays.enumerated().map { Numbered(index: $0.offset, delayMS: $0.element, fails: false) }
        let batch = RequestBatch(requests: requests, configuration: makeHost())
        let arrivals = Collector<Int>()
        batch.onResult = { index, _ in arrivals.append(index) }
        batch.start(on: queue)
        waitFor(arrivals, count: 4)
        XCTAssertEqual(arrivals.values, [1, 3, 2, 0])
    }

    func testCancellingABatchCancelsEveryMemberAndCompletesOnce() {
        let requests = (0..<10).map { Numbered(index: $0, delayMS: 3000, fails: false) }
        let batch = RequestBatch(requests: requests, configuration: makeHost())
        let done = Collector<[Result<Int, NetworkError>]>()
        batch.completion = { done.append($0) }
        batch.start(on: queue)
        // URLSession opens at most 6 connections to a host, so 6 requests reach the server.
        waitForRequests(path: "/number", count: 6)
        batch.cancel()
        waitFor(done, count: 1, timeout: 3)
        XCTAssertEqual(done.values.first?.count, 10, "\(String(describing: done.values.first))")
        for result in done.values.first ?? [] {
            guard case .failure(let error) = result, error.isCancelled else { return XCTFail("not cancelled: \(result)") }
        }
        RunLoop.current.run(until: Date().addingTimeInterval(0.05))
        XCTAssertEqual(done.count, 1)
    }

    func testEmptyBatchCompletes() async {
        let results = await RequestBatch<Int>(operations: []).run(on: queue)
        XCTAssertTrue(results.isEmpty)
    }

    // MARK: groups and lifetimes

    func testOwnerGoingAwayCancelsItsRequests() {
        final class Screen {
            let requests = CancellationBag()
        }
        let host = makeHost()
        var screen: Screen? = Screen()
        let ops = (0..<3).map { _ in RequestOperation(request: TestRequest("/delay/3000"), configuration: host, responseDecoder: .json) }
        ops.forEach { screen?.requests.insert($0) }
        queue.addOperations(ops, waitUntilFinished: false)
        waitForRequests(path: "/delay/3000", count: 3)
        screen = nil
        ops.forEach { waitUntilFinished($0, timeout: 2) }
        callbackQueue.sync {}
        XCTAssertTrue(ops.allSatisfy { if case .failure(let e)? = $0.result { return e.isCancelled } else { return false } })
    }

    func testBagListsAndCancelsItsUnfinishedOperationsInOrder() {
        let bag = CancellationBag()
        let finished = BlockOperation {}
        finished.start()
        XCTAssertTrue(finished.isFinished)
        let first = BlockOperation {}
        let second = BlockOperation {}
        bag.insert(first)
        bag.insert(finished)
        bag.insert(second)
        XCTAssertEqual(bag.operations, [first, second])
        bag.cancelAll()
        XCTAssertTrue(first.isCancelled)
        XCTAssertTrue(second.isCancelled)
        XCTAssertEqual(bag.operations, [])
    }

    func testBagDoesNotKeepOperationsAlive() {
        let bag = CancellationBag()
        weak var weakOp: Operation?
        do {
            let op = BlockOperation {}
            bag.insert(op)
            weakOp = op
        }
        XCTAssertNil(weakOp)
        XCTAssertTrue(bag.operations.isEmpty)
        bag.cancelAll()
    }

    // MARK: coalescing

    func testTwentyIdenticalGETsShareOneRequestAndOneCallerCancels() {
        server.route("GET", "/shared") { _ in .delayed(0.3, .json(#"{"v": 1}"#)) }
        let host = makeHost()
        host.coalescesRequests = true
        let ops = (0..<20).map { _ in RequestOperation(request: TestRequest("/shared"), configuration: host, responseDecoder: .json) }
        let wide = NetworkQueue(maxConcurrentOperationCount: 20)
        wide.addOperations(ops, waitUntilFinished: false)
        waitForRequests(path: "/shared", count: 1)
        ops[5].cancel()
        ops.forEach { waitUntilFinished($0) }
        callbackQueue.sync {}
        XCTAssertEqual(server.requests(path: "/shared").count, 1)
        for (index, op) in ops.enumerated() {
            switch op.result {
            case .success?: XCTAssertNotEqual(index, 5)
            case .failure(let error)?: XCTAssertEqual(index, 5); XCTAssertTrue(error.isCancelled)
            case nil: XCTFail("\(index) has no result")
            }
        }
    }

    func testIdenticalGETsShareATransferPerPathWhileOthersFly() {
        let paths = ["/fly/a", "/fly/b", "/fly/c"]
        for (index, path) in paths.enumerated() {
            server.route("GET", path) { _ in .delayed(0.2 + 0.1 * Double(index), .json(#"{"path": "\#(path)"}"#)) }
        }
        let host = makeHost()
        host.coalescesRequests = true
        let ops = (0..<12).map { RequestOperation(request: TestRequest(paths[$0 % 3]), configuration: host, responseDecoder: .json) }
        NetworkQueue(maxConcurrentOperationCount: 12).addOperations(ops, waitUntilFinished: false)
        ops.forEach { waitUntilFinished($0) }
        for path in paths {
            XCTAssertEqual(server.requests(path: path).count, 1, path)
        }
        for (index, op) in ops.enumerated() {
            guard case .success(let json)? = op.result else { return XCTFail("\(index): \(String(describing: op.result))") }
            XCTAssertEqual((json as? [String: Any])?["path"] as? String, paths[index % 3])
        }
        // Landed flights leave the table: the same paths fly again.
        let again = paths.map { RequestOperation(request: TestRequest($0), configuration: host, responseDecoder: .json) }
        queue.addOperations(again, waitUntilFinished: false)
        again.forEach { waitUntilFinished($0) }
        for path in paths {
            XCTAssertEqual(server.requests(path: path).count, 2, path)
        }
    }

    func testCoalescingIsOffForPostsAndWhenEveryCallerCancels() {
        server.route("POST", "/post") { _ in .delayed(0.2, .json("{}")) }
        server.route("GET", "/slow-shared") { _ in .delayed(2, .json("{}")) }
        let host = makeHost()
        host.coalescesRequests = true
        let posts = (0..<3).map { _ in RequestOperation(request: TestRequest("/post", method: .post), configuration: host, responseDecoder: .json) }
        queue.addOperations(posts, waitUntilFinished: false)
        posts.forEach { waitUntilFinished($0) }
        XCTAssertEqual(server.requests(path: "/post").count, 3)

        let gets = (0..<3).map { _ in RequestOperation(request: TestRequest("/slow-shared"), configuration: host, responseDecoder: .json) }
        queue.addOperations(gets, waitUntilFinished: false)
        waitForRequests(path: "/slow-shared", count: 1)
        let started = Date()
        gets.forEach { $0.cancel() }
        gets.forEach { waitUntilFinished($0, timeout: 1) }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        XCTAssertEqual(server.requests(path: "/slow-shared").count, 1)
    }

    /// A GET that asks to coalesce, on its own terms.
    private struct CoalescingGet: BaseAPIRequest {
        var api: String
        var method: NetworkService.Method { .get }
        var query: NetworkService.QueryType { .path }
        var params: [String: Any]? { nil }
        var headers: [String: String]? { nil }
        var coalescesIdenticalRequests: Bool? { true }
    }

    func testARequestsOwnCoalescingNeedsTheFeatureInstalledOnItsHost() {
        server.route("GET", "/asks") { _ in .delayed(0.3, .json("{}")) }
        func sendThree(on host: HostConfiguration) {
            let ops = (0..<3).map { _ in RequestOperation(request: CoalescingGet(api: "/asks"), configuration: host, responseDecoder: .json) }
            NetworkQueue(maxConcurrentOperationCount: 3).addOperations(ops, waitUntilFinished: false)
            ops.forEach { waitUntilFinished($0) }
        }
        let plain = makeHost()
        XCTAssertFalse(plain.coalescesRequests)
        sendThree(on: plain)
        XCTAssertEqual(server.requests(path: "/asks").count, 3, "never set: the request's wish does nothing")

        let installed = makeHost()
        installed.coalescesRequests = false
        sendThree(on: installed)
        XCTAssertEqual(server.requests(path: "/asks").count, 4, "installed (off for the host): the request that asks coalesces")
    }
}
