import EasyNetwork
import Foundation
import XCTest

/// `NetworkQueue.addOperation` ignores an operation that is already in a queue, running
/// or finished, whatever its class: Foundation would stop the process for it.
final class NetworkQueueTests: XCTestCase {
    func testABlockOperationAddedTwiceRunsOnce() {
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        queue.isSuspended = true
        let runs = Collector<Int>()
        let operation = BlockOperation { runs.append(1) }
        queue.addOperation(operation)
        queue.addOperation(operation)
        XCTAssertEqual(queue.operationCount, 1)
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(runs.count, 1)
    }

    func testClaimsOfQueuedOperationsSurviveTheRegistrysSweep() {
        // Many foreign operations queued at once (more than the 64 the registry once held
        // before it swept): every claim of an operation that is still queued is kept.
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        queue.isSuspended = true
        let runs = Collector<Int>()
        let operations = (0..<150).map { index in BlockOperation { runs.append(index) } }
        operations.forEach(queue.addOperation)
        operations.forEach(queue.addOperation)
        XCTAssertEqual(queue.operationCount, 150)
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(runs.values.sorted(), Array(0..<150))
    }

    func testEntriesOfFinishedOperationsAreTakenOverAndStillRefuseDuplicates() {
        // The registry's entries of finished operations are taken over by new claims: a
        // claim made in a taken-over entry still refuses a second add, and a finished
        // operation added again is still ignored.
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        let runs = Collector<Int>()
        let first = (0..<10).map { index in BlockOperation { runs.append(index) } }
        first.forEach(queue.addOperation)
        queue.waitUntilAllOperationsAreFinished()
        queue.isSuspended = true
        let second = (10..<20).map { index in BlockOperation { runs.append(index) } }
        second.forEach(queue.addOperation)
        second.forEach(queue.addOperation)
        first.forEach(queue.addOperation)
        XCTAssertEqual(queue.operationCount, 10)
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(runs.values.sorted(), Array(0..<20))
    }

    func testDuplicatesInsideOneArrayAndAcrossTwoQueuesAreLeftOut() {
        let first = NetworkQueue(maxConcurrentOperationCount: 2)
        let second = NetworkQueue(maxConcurrentOperationCount: 2)
        first.isSuspended = true
        second.isSuspended = true
        let runs = Collector<String>()
        let a = BlockOperation { runs.append("a") }
        let b = BlockOperation { runs.append("b") }
        let c = NetworkOperationProbe { runs.append("c") }
        first.addOperations([a, b, a, c, c, b], waitUntilFinished: false)
        second.addOperations([b, a, c], waitUntilFinished: false)
        second.addOperation(a)
        second.addOperation(c)
        XCTAssertEqual(first.operationCount, 3)
        XCTAssertEqual(second.operationCount, 0)
        first.isSuspended = false
        second.isSuspended = false
        first.waitUntilAllOperationsAreFinished()
        second.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(runs.values.sorted(), ["a", "b", "c"])
    }

    func testFinishedAndRunningOperationsAreIgnored() {
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        let runs = Collector<Int>()
        let finished = BlockOperation { runs.append(1) }
        finished.start()
        XCTAssertTrue(finished.isFinished)
        queue.addOperation(finished)
        queue.addOperations([finished], waitUntilFinished: true)

        // One finished in another NetworkQueue, then handed to this one again.
        let other = NetworkQueue(maxConcurrentOperationCount: 1)
        let elsewhere = BlockOperation { runs.append(2) }
        other.addOperations([elsewhere], waitUntilFinished: true)
        queue.addOperation(elsewhere)

        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let running = BlockOperation {
            started.signal()
            release.wait()
            runs.append(3)
        }
        queue.addOperation(running)
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        queue.addOperation(running)
        other.addOperation(running)
        release.signal()
        queue.waitUntilAllOperationsAreFinished()
        other.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(runs.values, [1, 2, 3])
        XCTAssertEqual(queue.operationCount, 0)
    }

    func testTheSameOperationAddedFromManyThreadsAtOnceRunsOnce() {
        let queues = [NetworkQueue(maxConcurrentOperationCount: 4), NetworkQueue(maxConcurrentOperationCount: 4)]
        let runs = Collector<Int>()
        let operations = (0..<200).map { index in BlockOperation { runs.append(index) } }
        queues.forEach { $0.isSuspended = true }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for operation in operations {
                queues[thread % 2].addOperation(operation)
            }
        }
        queues.forEach { $0.isSuspended = false }
        queues.forEach { $0.waitUntilAllOperationsAreFinished() }
        XCTAssertEqual(runs.values.sorted(), Array(0..<200))
    }
}

extension NetworkQueueTests {
    /// Operations that ran and went away free their addresses; new ones made there (and
    /// enough of them for the registry to sweep several times) are not taken for repeats.
    func testManyShortLivedOperationsOneAfterAnotherAllRun() {
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        let runs = Collector<Int>()
        for index in 0..<300 {
            let operation = BlockOperation { runs.append(index) }
            queue.addOperation(operation)
            queue.addOperation(operation)
            queue.waitUntilAllOperationsAreFinished()
            queue.addOperation(operation)
        }
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(runs.values, Array(0..<300))
    }

    /// A repeat is still ignored when the registry swept in between (it holds more
    /// entries than its first sweep threshold).
    func testARepeatAfterManyOtherOperationsIsIgnored() {
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        queue.isSuspended = true
        let runs = Collector<Int>()
        let operations = (0..<200).map { index in BlockOperation { runs.append(index) } }
        queue.addOperations(operations, waitUntilFinished: false)
        queue.addOperations(operations.reversed(), waitUntilFinished: false)
        operations.forEach(queue.addOperation)
        XCTAssertEqual(queue.operationCount, 200)
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(runs.values.sorted(), Array(0..<200))
    }

    /// Only the operations carrying the tag are cancelled, with tags set at any time
    /// before the cancel; the width set later is what the queue underneath runs.
    func testCancelOperationsTaggedCancelsOnlyThoseAndTheWidthFollowsTheSetter() {
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        queue.isSuspended = true
        let runs = Collector<Int>()
        let operations = (0..<6).map { index in NetworkOperationProbe { runs.append(index) } }
        operations[1].tags = ["screen"]
        operations[3].tags = ["screen", "other"]
        operations[4].tags = ["other"]
        queue.addOperations(operations, waitUntilFinished: false)
        operations[5].tags.insert("screen")
        queue.cancelOperations(tagged: "screen")
        XCTAssertEqual(operations.map(\.isCancelled), [false, true, false, true, false, true])
        queue.maxConcurrentOperationCount = 0
        XCTAssertEqual(queue.maxConcurrentOperationCount, 1)
        XCTAssertEqual(queue.operationQueue.maxConcurrentOperationCount, 1)
        queue.maxConcurrentOperationCount = 3
        XCTAssertEqual(queue.operationQueue.maxConcurrentOperationCount, 3)
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(runs.values.sorted(), [0, 2, 4])
    }
}

/// A ``ServiceOperation`` that runs a closure (and not once cancelled).
private final class NetworkOperationProbe: ServiceOperation, @unchecked Sendable {
    private let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
        super.init()
        reportsOwnCancellation()
    }

    override func execute() {
        body()
        finish()
    }
}
