import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

/// An operation that finishes when the test says so (and does not run once cancelled).
private final class HeldOperation: ServiceOperation, @unchecked Sendable {
    override init() {
        super.init()
        reportsOwnCancellation()
    }

    override func execute() {}
}

/// A plain asynchronous `Operation` that finishes `delay` seconds after it starts.
private final class PlainDelayedOperation: Operation, @unchecked Sendable {  // unchecked: its flags are guarded by `lock`
    private let lock = NSLock()
    private var running = false
    private var done = false
    private let delay: TimeInterval

    init(delay: TimeInterval) {
        self.delay = delay
        super.init()
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.lock(); defer { lock.unlock() }; return running }
    override var isFinished: Bool { lock.lock(); defer { lock.unlock() }; return done }

    override func start() {
        willChangeValue(forKey: "isExecuting")
        lock.lock()
        running = true
        lock.unlock()
        didChangeValue(forKey: "isExecuting")
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            willChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished")
            lock.lock()
            running = false
            done = true
            lock.unlock()
            didChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isFinished")
        }
    }
}

/// Operations that depend on others: a cancel never leaves one where a finishing
/// dependency can reach it after it is gone.
final class OperationDependencyTests: XCTestCase {
    /// swift-corelibs-foundation lists an operation in each of its dependencies without
    /// retaining it, and `cancel()` makes a waiting operation ready at once: a cancelled
    /// dependent could start, finish and be released before its dependency finished, whose
    /// finish then read the freed operation (SIGSEGV in `Operation.observeValue`, called
    /// from `ServiceOperation.completeFinishing`). 2,000 such pairs, in a child process so
    /// that a crash fails this test alone.
    func testCancelledDependentReleasedBeforeItsDependencyFinishesDoesNotCrash() throws {
        let child = try ChildProcess.run(self, timeout: 120) {
            let queue = NetworkQueue(maxConcurrentOperationCount: 8)
            for _ in 0..<2_000 {
                let dependency = CountingOperation(delay: Double.random(in: 0.0001...0.002))
                let dependent = CountingOperation()
                dependent.addDependency(dependency)
                queue.addOperations([dependency, dependent], waitUntilFinished: false)
                dependent.cancel()
                // Nothing keeps `dependent` once the queue lets go of it.
            }
            queue.waitUntilAllOperationsAreFinished()
            return "finished"
        }
        XCTAssertFalse(child.crashed, child.summary)
        XCTAssertEqual(child.report, "finished")
    }

    /// The same with every operation cancelled while the dependencies run (a bulk
    /// cancel), from another thread.
    func testDependentsCancelledFromAnotherThreadWhileTheirDependenciesRunDoNotCrash() throws {
        let child = try ChildProcess.run(self, timeout: 120) {
            let queue = NetworkQueue(maxConcurrentOperationCount: 8)
            for _ in 0..<200 {
                let chain = (0..<4).map { _ in CountingOperation(delay: Double.random(in: 0...0.001)) }
                for (later, earlier) in zip(chain.dropFirst(), chain) {
                    later.addDependency(earlier)
                }
                queue.addOperations(chain, waitUntilFinished: false)
                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...1_500))) {
                    chain.reversed().forEach { $0.cancel() }
                }
            }
            Thread.sleep(forTimeInterval: 0.01)
            queue.cancelAllOperations()
            queue.waitUntilAllOperationsAreFinished()
            return "finished"
        }
        XCTAssertFalse(child.crashed, child.summary)
        XCTAssertEqual(child.report, "finished")
    }

    /// Cancelled, a waiting operation finishes without waiting for its dependency (as on
    /// Apple platforms) and still lists it.
    func testCancelledDependentFinishesAtOnceAndKeepsItsDependencies() {
        let dependency = HeldOperation()
        let dependent = CountingOperation()
        dependent.addDependency(dependency)
        let queue = NetworkQueue()
        queue.addOperations([dependency, dependent], waitUntilFinished: false)
        dependent.cancel()
        waitUntilFinished(dependent)
        XCTAssertEqual(dependent.executions.count, 0)
        XCTAssertFalse(dependency.isFinished)
        XCTAssertEqual(dependent.dependencies.count, 1)
        XCTAssertTrue(dependent.dependencies.first === dependency)
        XCTAssertTrue(dependent.isReady)
        dependency.finish()
        waitUntilFinished(dependency)
        XCTAssertTrue(dependent.isReady)
    }

    /// A dependent that is not cancelled still waits for its dependency.
    func testDependentWaitsForItsDependencyAfterAnotherOperationsCancel() {
        let dependency = HeldOperation()
        let dependent = CountingOperation()
        let bystander = CountingOperation()
        dependent.addDependency(dependency)
        bystander.addDependency(dependency)
        let queue = NetworkQueue()
        queue.addOperations([dependency, dependent, bystander], waitUntilFinished: false)
        bystander.cancel()
        waitUntilFinished(bystander)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(dependent.executions.count, 0, "started before its dependency finished")
        dependency.finish()
        waitUntilFinished(dependent)
        XCTAssertEqual(dependent.executions.count, 1)
    }

    #if os(Linux)
    /// The swift-corelibs-foundation bug the guard works around, with plain operations
    /// (which EasyNetwork cannot guard): it stops the process. When a toolchain fixes it,
    /// this test fails: update the Linux notes (LinuxNotes.md) and make it expect survival.
    func testCorelibsStillCrashesForAPlainCancelledDependentReleasedEarly() throws {
        let child = try ChildProcess.run(self, timeout: 120) {
            let queue = OperationQueue()
            for _ in 0..<2_000 {
                let dependency = PlainDelayedOperation(delay: Double.random(in: 0.0001...0.002))
                let dependent = BlockOperation {}
                dependent.addDependency(dependency)
                queue.addOperations([dependency, dependent], waitUntilFinished: false)
                dependent.cancel()
            }
            queue.waitUntilAllOperationsAreFinished()
            return "finished"
        }
        XCTAssertTrue(child.crashed, """
            Plain operations survived (\(child.report ?? "?")): the toolchain no longer reaches a \
            released dependent. Update the paragraph in LinuxNotes.md and this test.
            """)
    }
    #endif
}
