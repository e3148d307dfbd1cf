import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

/// A plain operation (one that does not run `execute` once cancelled, as the library's
/// own do) that counts how often `execute` ran and finishes later.
final class CountingOperation: ServiceOperation, @unchecked Sendable {
    let executions = Collector<Date>()
    let delay: TimeInterval

    init(delay: TimeInterval = 0) {
        self.delay = delay
        super.init()
        reportsOwnCancellation()
    }

    override func execute() {
        executions.append(Date())
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            finish()
            finish()
        }
    }
}

final class OperationLifecycleTests: ServerTestCase {
    func testCancelledBeforeStartFinishesWithoutExecuting() {
        let op = CountingOperation()
        op.cancel()
        let queue = NetworkQueue()
        queue.addOperation(op)
        waitUntilFinished(op)
        XCTAssertEqual(op.executions.count, 0)
        XCTAssertFalse(op.isExecuting)
        XCTAssertTrue(op.isCancelled)
    }

    func testFinishBeforeStartIsHeldUntilStart() {
        let op = CountingOperation()
        op.finish()
        XCTAssertFalse(op.isFinished, "must not finish before the queue started it")
        let queue = NetworkQueue()
        queue.addOperation(op)
        waitUntilFinished(op)
        XCTAssertEqual(op.executions.count, 0)
    }

    func testStartOutsideAQueueAndDoubleStartAreSafe() {
        let op = CountingOperation(delay: 0.01)
        op.start()
        op.start()
        XCTAssertTrue(op.isExecuting)
        waitUntilFinished(op)
        XCTAssertEqual(op.executions.count, 1)
        XCTAssertFalse(op.isExecuting)
        op.cancel()
        XCTAssertTrue(op.isFinished)
    }

    func testDependenciesRunInOrder() {
        let host = makeHost()
        let order = Collector<String>()
        let first = RequestOperation<Any?>(request: TestRequest("/delay/100"), configuration: host) { $0 }
        first.completion = { _ in order.append("first") }
        let second = RequestOperation<Any?>(request: TestRequest("/echo"), configuration: host) { $0 }
        second.completion = { _ in order.append("second") }
        second.addDependency(first)
        let queue = NetworkQueue(maxConcurrentOperationCount: 4)
        queue.addOperations([second, first], waitUntilFinished: false)
        waitUntilFinished(second)
        XCTAssertEqual(order.values, ["first", "second"])
        let firstSeen = server.requests(path: "/delay/100").first?.receivedAt
        let secondSeen = server.requests(path: "/echo").first?.receivedAt
        XCTAssertNotNil(firstSeen)
        XCTAssertNotNil(secondSeen)
        if let firstSeen, let secondSeen {
            XCTAssertGreaterThan(secondSeen.timeIntervalSince(firstSeen), 0.09)
        }
    }

    func testMaxConcurrencyIsHonouredAsCountedByTheServer() {
        let host = makeHost()
        let queue = NetworkQueue(maxConcurrentOperationCount: 3)
        let ops = (0..<12).map { _ in RequestOperation<Any?>(request: TestRequest("/delay/80"), configuration: host) { $0 } }
        queue.addOperations(ops, waitUntilFinished: false)
        ops.forEach { waitUntilFinished($0, timeout: 10) }
        XCTAssertEqual(server.requests(path: "/delay/80").count, 12)
        XCTAssertEqual(server.peakConcurrentRequests, 3)
        XCTAssertEqual(queue.operationCount, 0)
    }

    func testSuspendedQueueStartsNothingUntilResumed() {
        let host = makeHost()
        let queue = NetworkQueue()
        queue.isSuspended = true
        let op = RequestOperation<Any?>(request: TestRequest("/echo"), configuration: host) { $0 }
        queue.addOperation(op)
        RunLoop.current.run(until: Date().addingTimeInterval(0.2))
        XCTAssertEqual(server.requests.count, 0)
        XCTAssertEqual(queue.operationCount, 1)
        queue.isSuspended = false
        waitUntilFinished(op)
        XCTAssertEqual(server.requests.count, 1)
    }

    func testCancelAllOperationsFinishesEveryOperation() {
        let host = makeHost()
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        let reports = Collector<Bool>()
        let ops = (0..<10).map { _ -> RequestOperation<Any?> in
            let op = RequestOperation<Any?>(request: TestRequest("/delay/2000"), configuration: host) { $0 }
            op.completion = { result in
                if case .failure(let error) = result { reports.append(error.isCancelled) }
            }
            return op
        }
        queue.addOperations(ops, waitUntilFinished: false)
        waitForRequests(path: "/delay/2000", count: 2)
        let started = Date()
        queue.cancelAllOperations()
        ops.forEach { waitUntilFinished($0) }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5)
        let deadline = Date().addingTimeInterval(2)
        while reports.count < 10 && Date() < deadline { RunLoop.current.run(until: Date().addingTimeInterval(0.01)) }
        XCTAssertEqual(reports.values, Array(repeating: true, count: 10))
        XCTAssertEqual(server.requests(path: "/delay/2000").count, 2)
    }

    /// 1,000 operations, a third cancelled at random moments: every operation finishes,
    /// every one reports exactly once, and the uncancelled ones succeed.
    func testThousandOperationsWithRandomCancels() {
        let host = makeHost()
        let queue = NetworkQueue(maxConcurrentOperationCount: 8)
        let total = 1000
        let reports = (0..<total).map { _ in Collector<Result<Any?, NetworkError>>() }
        var generator = SystemRandomNumberGenerator()
        let ops = (0..<total).map { index -> RequestOperation<Any?> in
            let path = index % 10 == 0 ? "/delay/20" : "/echo"
            let op = RequestOperation<Any?>(request: TestRequest(path, params: ["i": index]), configuration: host) { _ in nil }
            op.completion = { result in reports[index].append(result) }
            return op
        }
        let cancelled = Set((0..<total).filter { _ in Int.random(in: 0..<3, using: &generator) == 0 })
        let cancelledBeforeAdding = Set(cancelled.filter { $0 % 2 == 0 })
        for index in cancelledBeforeAdding { ops[index].cancel() }
        queue.addOperations(ops, waitUntilFinished: false)
        for index in cancelled.subtracting(cancelledBeforeAdding).shuffled() {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 0..<300))) {
                ops[index].cancel()
            }
        }
        let deadline = Date().addingTimeInterval(60)
        while (queue.operationCount > 0 || reports.contains { $0.count == 0 }) && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.01))
        }
        // Give late duplicate callbacks, if any existed, a chance to show up.
        callbackQueue.sync {}
        RunLoop.current.run(until: Date().addingTimeInterval(0.1))

        XCTAssertEqual(queue.operationCount, 0)
        XCTAssertTrue(ops.allSatisfy(\.isFinished))
        var succeeded = 0
        for index in 0..<total {
            XCTAssertEqual(reports[index].count, 1, "operation \(index) reported \(reports[index].count) times")
            switch reports[index].values.first {
            case .success?:
                succeeded += 1
            case .failure(let error)?:
                XCTAssertTrue(cancelled.contains(index), "operation \(index) failed without a cancel: \(error)")
                XCTAssertTrue(error.isCancelled, "\(error)")
            case nil:
                break
            }
        }
        XCTAssertGreaterThanOrEqual(succeeded, total - cancelled.count)
    }
}

final class OperationPriorityTests: ServerTestCase {
    func testHighPriorityOperationAddedLastStartsFirstOnAOneWideQueue() {
        let host = makeHost()
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        queue.isSuspended = true
        let low = (0..<5).map { index -> RequestOperation<Any?> in
            let op = RequestOperation<Any?>(request: TestRequest("/echo", params: ["op": "low\(index)"]), configuration: host) { $0 }
            op.queuePriority = .low
            return op
        }
        let urgent = RequestOperation<Any?>(request: TestRequest("/echo", params: ["op": "urgent"]), configuration: host) { $0 }
        urgent.queuePriority = .veryHigh
        urgent.qualityOfService = .userInitiated
        queue.addOperations(low + [urgent], waitUntilFinished: false)
        queue.isSuspended = false
        (low + [urgent]).forEach { waitUntilFinished($0) }
        let order = server.requests(path: "/echo").compactMap { $0.queryItems.first?.value }
        XCTAssertEqual(order.first, "urgent")
        XCTAssertEqual(Array(order.dropFirst()), ["low0", "low1", "low2", "low3", "low4"])
    }
}
