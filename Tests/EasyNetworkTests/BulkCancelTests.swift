import EasyNetwork
import Foundation
import XCTest

/// Many queued operations cancelled at once: their cancellations reach the callback
/// queue at once (issue 12, item 13), and each operation still gets exactly one
/// failure and one completion, in that order, on its host's callback queue, and finishes.
/// Speed is measured by `EasyNetworkBenchmarks --bulk-cancel`, not here.
final class BulkCancelTests: XCTestCase {
    private enum Call: Equatable, Sendable {
        case success, failure(cancelled: Bool), completion(cancelled: Bool)
    }

    private struct Record: Sendable {
        let index: Int
        let call: Call
        let onMain: Bool
        let onCallbackQueue: Bool
    }

    /// Half the operations call back on the main queue (the default), half on a serial
    /// queue of their own host; nothing is sent (the hosts point at a closed port).
    func testEveryQueuedOperationCancelledAtOnceGetsOneCancellationAndFinishes() {
        let count = 4_000
        let mainHost = HostConfiguration(baseURL: URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/"))
        let serialHost = HostConfiguration(baseURL: URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/"))
        let callbackQueue = DispatchQueue(label: "BulkCancelTests.callbacks")
        let marker = DispatchSpecificKey<Bool>()
        callbackQueue.setSpecific(key: marker, value: true)
        serialHost.callbackQueue = callbackQueue

        let records = Collector<Record>()
        let delivered = expectation(description: "every completion")
        delivered.expectedFulfillmentCount = count
        let queue = NetworkQueue()
        queue.isSuspended = true
        var operations: [RequestOperation<Data>] = []
        for index in 0..<count {
            let host = index.isMultiple(of: 2) ? mainHost : serialHost
            let operation = RequestOperation(request: TestRequest("/never"), configuration: host, responseDecoder: .data)
            @Sendable func record(_ call: Call) {
                records.append(Record(index: index, call: call, onMain: Thread.isMainThread,
                                      onCallbackQueue: DispatchQueue.getSpecific(key: marker) == true))
            }
            operation.success = { _ in record(.success) }
            operation.failure = { error in record(.failure(cancelled: error.isCancelled)) }
            operation.completion = { result in
                if case .failure(let error) = result {
                    record(.completion(cancelled: error.isCancelled))
                } else {
                    record(.completion(cancelled: false))
                }
                delivered.fulfill()
            }
            operations.append(operation)
        }
        queue.addOperations(operations, waitUntilFinished: false)
        queue.cancelAllOperations()
        queue.isSuspended = false
        wait(for: [delivered], timeout: 60)
        // Anything delivered twice would arrive after the last first delivery: let both
        // callback queues drain once more before counting.
        callbackQueue.sync {}
        RunLoop.current.run(until: Date().addingTimeInterval(0.2))

        var calls = Array(repeating: [Call](), count: count)
        for record in records.values {
            calls[record.index].append(record.call)
            if record.index.isMultiple(of: 2) {
                XCTAssertTrue(record.onMain, "operation \(record.index) called back off the main queue")
            } else {
                XCTAssertTrue(record.onCallbackQueue, "operation \(record.index) called back off its host's queue")
            }
        }
        let expected: [Call] = [.failure(cancelled: true), .completion(cancelled: true)]
        let wrong = calls.indices.filter { calls[$0] != expected }
        XCTAssertEqual(wrong.count, 0, "operations with other calls than one failure then one completion, e.g. "
            + (wrong.first.map { "#\($0): \(calls[$0])" } ?? ""))

        let deadline = Date().addingTimeInterval(10)
        while operations.contains(where: { !$0.isFinished }) && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.01))
        }
        XCTAssertEqual(operations.filter { !$0.isFinished }.count, 0, "operations not finished")
        XCTAssertEqual(operations.filter { $0.isExecuting }.count, 0, "operations still executing")
        let notCancelled = operations.filter { operation in
            guard case .failure(let error)? = operation.result else { return true }
            return !error.isCancelled
        }
        XCTAssertEqual(notCancelled.count, 0, "operations whose result is not the cancellation")
        XCTAssertEqual(queue.operationCount, 0)
    }

    /// Cancelled operations of one host that are added and cancelled in waves while the
    /// earlier waves are being delivered: no cancellation is lost between two batches.
    func testCancellationsPostedWhileABatchIsDeliveredAreNotLost() {
        let host = HostConfiguration(baseURL: URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/"))
        host.callbackQueue = DispatchQueue(label: "BulkCancelTests.waves")
        let waves = 20
        let perWave = 200
        let completions = Collector<Int>()
        let delivered = expectation(description: "every completion")
        delivered.expectedFulfillmentCount = waves * perWave
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        DispatchQueue.concurrentPerform(iterations: waves) { wave in
            let operations = (0..<perWave).map { offset in
                let operation = RequestOperation(request: TestRequest("/never"), configuration: host, responseDecoder: .data)
                operation.completion = { _ in
                    completions.append(wave * perWave + offset)
                    delivered.fulfill()
                }
                operation.cancel()
                return operation
            }
            queue.addOperations(operations, waitUntilFinished: false)
        }
        wait(for: [delivered], timeout: 60)
        host.callbackQueue.sync {}
        XCTAssertEqual(completions.count, waves * perWave)
        XCTAssertEqual(Set(completions.values).count, waves * perWave)
    }

    /// On a queue one wide, cancelled operations finish in the order they were queued;
    /// their callbacks keep that order on a serial callback queue.
    func testBatchedCancellationsKeepTheOrderOfTheQueue() {
        let host = HostConfiguration(baseURL: URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/"))
        host.callbackQueue = DispatchQueue(label: "BulkCancelTests.order")
        let count = 2_000
        let order = Collector<Int>()
        let delivered = expectation(description: "every completion")
        delivered.expectedFulfillmentCount = count
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        queue.isSuspended = true
        let operations = (0..<count).map { index in
            let operation = RequestOperation(request: TestRequest("/never"), configuration: host, responseDecoder: .data)
            operation.completion = { _ in
                order.append(index)
                delivered.fulfill()
            }
            return operation
        }
        queue.addOperations(operations, waitUntilFinished: false)
        queue.cancelAllOperations()
        queue.isSuspended = false
        wait(for: [delivered], timeout: 60)
        XCTAssertEqual(order.values, Array(0..<count))
    }

    /// An operation cancelled while it waits behind a long one calls back at once, not
    /// when the slot frees; it still finishes only when the queue gets to it, unsent.
    func testAnOperationCancelledWhileWaitingCallsBackWithoutWaitingForASlot() {
        let host = HostConfiguration(baseURL: URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/"))
        host.callbackQueue = DispatchQueue(label: "BulkCancelTests.waiting")
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        let release = DispatchSemaphore(value: 0)
        let occupying = expectation(description: "the slot is taken")
        queue.addOperation(BlockOperation {
            occupying.fulfill()
            release.wait()
        })
        wait(for: [occupying], timeout: 10)
        let waiting = RequestOperation(request: TestRequest("/never"), configuration: host, responseDecoder: .data)
        let calls = Collector<String>()
        let called = expectation(description: "called back")
        waiting.failure = { error in calls.append("failure \(error.isCancelled)") }
        waiting.completion = { _ in
            calls.append("completion")
            called.fulfill()
        }
        queue.addOperation(waiting)
        waiting.cancel()
        wait(for: [called], timeout: 10)
        XCTAssertEqual(calls.values, ["failure true", "completion"])
        XCTAssertFalse(waiting.isFinished, "it finishes when the queue starts it")
        guard case .failure(let error)? = waiting.result else { return XCTFail("no result") }
        XCTAssertTrue(error.isCancelled)

        release.signal()
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertTrue(waiting.isFinished)
        XCTAssertFalse(waiting.isExecuting)
        host.callbackQueue.sync {}
        XCTAssertEqual(calls.count, 2, "called back once")
    }

    /// A RequestOperation cancelled before it starts outside a NetworkQueue (a plain
    /// `OperationQueue`, or `start()` by hand) stores the cancellation and calls back once,
    /// failure then completion, on the callback queue (the same path for operations that
    /// were never in a NetworkQueue).
    func testCancelledOperationsOutsideANetworkQueueCallBackOnceInOrder() {
        let host = HostConfiguration(baseURL: URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/"))
        host.callbackQueue = DispatchQueue(label: "BulkCancelTests.plain")
        let count = 300
        let calls = Collector<String>()
        let delivered = expectation(description: "every completion")
        delivered.expectedFulfillmentCount = count
        let operations = (0..<count).map { index in
            let operation = RequestOperation(request: TestRequest("/never"), configuration: host, responseDecoder: .data)
            operation.failure = { error in calls.append("\(index) failure \(error.isCancelled)") }
            operation.completion = { result in
                if case .failure(let error) = result {
                    calls.append("\(index) completion \(error.isCancelled)")
                }
                delivered.fulfill()
            }
            operation.cancel()
            return operation
        }
        let plain = OperationQueue()
        plain.addOperations(Array(operations[0..<(count / 2)]), waitUntilFinished: false)
        operations[(count / 2)...].forEach { $0.start() }
        wait(for: [delivered], timeout: 30)
        plain.waitUntilAllOperationsAreFinished()
        host.callbackQueue.sync {}
        for index in 0..<count {
            let mine = calls.values.filter { $0.hasPrefix("\(index) ") }
            XCTAssertEqual(mine, ["\(index) failure true", "\(index) completion true"], "operation \(index)")
        }
        XCTAssertTrue(operations.allSatisfy { $0.isFinished })
        XCTAssertTrue(operations.allSatisfy { operation in
            if case .failure(let error)? = operation.result { return error.isCancelled }
            return false
        })
    }

    /// The service of an operation is made on first use: one first asked for after the
    /// operation was cancelled is already cancelled, and a service in use is cancelled
    /// with its operation (the same instance every time).
    func testTheServiceOfACancelledOperationIsCancelled() {
        let host = HostConfiguration(baseURL: URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/"))
        let early = RequestOperation(request: TestRequest("/never"), configuration: host, responseDecoder: .data)
        early.cancel()
        XCTAssertTrue(early.service.isCancelled)
        XCTAssertTrue(early.service === early.service)
        XCTAssertTrue(early.service.configuration === host)

        let late = RequestOperation(request: TestRequest("/never"), configuration: host, responseDecoder: .data)
        let service = late.service
        XCTAssertFalse(service.isCancelled)
        late.cancel()
        XCTAssertTrue(service.isCancelled)
        XCTAssertTrue(late.service === service)

        // Cancel and first use racing from two threads: the service always ends cancelled.
        for _ in 0..<200 {
            let operation = RequestOperation(request: TestRequest("/never"), configuration: host, responseDecoder: .data)
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                if side == 0 { operation.cancel() } else { _ = operation.service }
            }
            XCTAssertTrue(operation.service.isCancelled)
        }
    }

    /// Operations share a pool of locks. Replacing a callback releases the old closure
    /// after the lock is let go, so a capture whose `deinit` cancels or reads other
    /// operations (which may share the lock) never deadlocks.
    func testReleasingACallbackWhoseCaptureTouchesOtherOperationsDoesNotDeadlock() {
        let host = HostConfiguration(baseURL: URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/"))
        host.callbackQueue = DispatchQueue(label: "BulkCancelTests.deinit")
        // More operations than locks in the pool: some are sure to share one.
        let count = 1_000
        let operations = (0..<count).map { _ in
            RequestOperation(request: TestRequest("/never"), configuration: host, responseDecoder: .data)
        }
        for (index, operation) in operations.enumerated() {
            let canary = DeinitCanary {
                for other in operations[(index + 1)...].prefix(8) {
                    other.cancel()
                    _ = other.result
                    other.failure = nil
                }
            }
            operation.completion = { _ in _ = canary }
            operation.success = { _ in _ = canary }
        }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for operation in operations {
                operation.completion = nil
                operation.success = nil
            }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "releasing callbacks deadlocked")
    }
}

/// Runs `onDeinit` when released.
private final class DeinitCanary: @unchecked Sendable {
    // Set once, at init.
    private let onDeinit: () -> Void

    init(_ onDeinit: @escaping () -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}
