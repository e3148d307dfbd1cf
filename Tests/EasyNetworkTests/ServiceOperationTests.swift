import EasyNetwork
import EasyNetworkTestSupport
import EasyNetworkTesting
import Foundation
import XCTest

/// A seed-style operation whose failure closure forgets `finish()`: the service still
/// finishes it once the cancellation of its request was delivered.
private final class ForgetfulOperation: ServiceOperation, @unchecked Sendable {
    let failures = Collector<NetworkError>()

    override func execute() {
        service.request(TestRequest("/slow"), failure: { [failures] in failures.append($0) })
    }
}

final class ServiceOperationTests: ServerTestCase {
    func testCancelledInFlightFinishesAfterItsFailureEvenWithoutFinish() {
        server.route("GET", "/slow") { _ in .delayed(5, .json("{}")) }
        let operation = ForgetfulOperation(configuration: makeHost())
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        queue.addOperation(operation)
        let deadline = Date().addingTimeInterval(5)
        while server.requests(path: "/slow").isEmpty && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.005))
        }
        operation.cancel()
        waitUntilFinished(operation)
        XCTAssertEqual(operation.failures.values.map(\.isCancelled), [true])
    }

    // MARK: Issue 28: a seed operation cancelled before it started calls back once

    /// What a README-style operation (`SignInOperation`, the seed's code) reported.
    private final class Reports: @unchecked Sendable {  // unchecked: Collectors are thread-safe
        let successes = Collector<SignInItem>()
        let failures = Collector<Error>()

        func watch(_ op: SignInOperation) {
            op.success = { [successes] in successes.append($0) }
            op.failure = { [failures] in failures.append($0) }
        }

        var calls: Int { successes.count + failures.count }
        var cancelled: Bool { failures.values.count == 1 && (failures.values.first as? NetworkError)?.isCancelled == true }
    }

    private func routeSignIn(delay: TimeInterval = 0) {
        server.route("POST", "/sign_in") { request in
            let user = (request.jsonBody() as? [String: Any])?["username"] as? String ?? "?"
            let reply = LoopbackReply.json(object: ["userName": user, "token": "t"])
            return delay > 0 ? .delayed(delay, reply) : reply
        }
    }

    /// Waits until `ops` have finished and every one has called back (or the time is up),
    /// then a little longer for late duplicates.
    private func settle(_ ops: [Operation], _ reports: [Reports], timeout: TimeInterval = 20) {
        let deadline = Date().addingTimeInterval(timeout)
        while (!ops.allSatisfy(\.isFinished) || reports.contains { $0.calls == 0 }) && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.01))
        }
        callbackQueue.sync {}
        RunLoop.current.run(until: Date().addingTimeInterval(0.1))
    }

    /// The case: a width-1 queue, a running request holding the slot, a seed
    /// operation queued behind it and cancelled before it starts. Its failure closure is
    /// called exactly once, with a cancellation; it finishes; it sends nothing.
    func testASeedOperationCancelledWhileQueuedCallsItsFailureOnceAndFinishes() {
        routeSignIn()
        server.route("GET", "/slow") { _ in .delayed(1, .json("{}")) }
        let host = makeHost()
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        let running = RequestOperation(request: TestRequest("/slow"), configuration: host, responseDecoder: .json)
        queue.addOperation(running)
        waitForRequests(path: "/slow", count: 1)
        let op = SignInOperation(userName: "ana", password: "secret", configuration: host)
        let reports = Reports()
        reports.watch(op)
        queue.addOperation(op)
        op.cancel()
        let deadline = Date().addingTimeInterval(5)
        while reports.calls == 0 && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.005))
        }
        XCTAssertFalse(running.isFinished, "the cancellation does not wait for the slot")
        settle([op, running], [reports])
        XCTAssertTrue(op.isFinished)
        XCTAssertEqual(reports.successes.count, 0)
        XCTAssertEqual(reports.failures.count, 1, "the failure closure is called exactly once")
        XCTAssertTrue(reports.cancelled, "\(reports.failures.values)")
        XCTAssertEqual(server.requests(path: "/sign_in").count, 0, "nothing is sent")
        XCTAssertNoThrow(try running.result?.get(), "the running request is not disturbed")
    }

    /// Cancelled before it was added, cancelled by `cancelAllOperations()` with the
    /// running one, and cancelled then started by hand: each calls back once.
    func testEveryWayOfCancellingASeedOperationBeforeItStartsCallsBackOnce() {
        routeSignIn(delay: 2)
        let host = makeHost()
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)

        let early = SignInOperation(userName: "early", password: "secret", configuration: host)
        let earlyReports = Reports()
        earlyReports.watch(early)
        early.cancel()
        queue.addOperation(early)

        let byHand = SignInOperation(userName: "hand", password: "secret", configuration: host)
        let byHandReports = Reports()
        byHandReports.watch(byHand)
        byHand.cancel()
        byHand.start()

        let running = SignInOperation(userName: "running", password: "secret", configuration: host)
        let waiting = SignInOperation(userName: "waiting", password: "secret", configuration: host)
        let runningReports = Reports(), waitingReports = Reports()
        runningReports.watch(running)
        waitingReports.watch(waiting)
        queue.addOperation(running)
        queue.addOperation(waiting)
        waitForRequests(path: "/sign_in", count: 1)
        let cancelledAt = Date()
        queue.cancelAllOperations()

        let all = [early, byHand, running, waiting]
        let reports = [earlyReports, byHandReports, runningReports, waitingReports]
        settle(all, reports)
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 1.8, "no one waits for the 2 s answer")
        for (name, report) in zip(["early", "by hand", "running", "waiting"], reports) {
            XCTAssertEqual(report.calls, 1, "\(name): exactly one callback")
            XCTAssertTrue(report.cancelled, "\(name): \(report.failures.values)")
        }
        XCTAssertTrue(all.allSatisfy(\.isFinished))
        XCTAssertEqual(server.requests(path: "/sign_in").count, 1, "only the running one was sent")
    }

    /// A seed operation's `execute()` that ignores a cancellation (returns without a
    /// request or `finish()`) cannot hold the queue: the operation finishes as any
    /// cancelled one does, and the queue goes on.
    func testACancelledSeedOperationFinishesWhateverItsExecuteDoes() {
        final class Silent: ServiceOperation, @unchecked Sendable {
            let runs = Collector<Bool>()
            override func execute() {
                runs.append(isCancelled)
                guard !isCancelled else { return }  // forgets finish()
                finish()
            }
        }
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        let silent = Silent(configuration: makeHost())
        silent.cancel()
        let next = Silent(configuration: makeHost())
        queue.addOperations([silent, next], waitUntilFinished: false)
        waitUntilFinished(silent)
        waitUntilFinished(next)
        XCTAssertEqual(next.runs.values, [false])
        let deadline = Date().addingTimeInterval(2)
        while silent.runs.count == 0 && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.005))
        }
        XCTAssertEqual(silent.runs.values, [true], "its execute() ran once, cancelled")
    }

    /// A storm: seed operations and typed requests mixed on a narrow queue, half of them
    /// cancelled at random moments (some before they are added). Every seed operation
    /// calls back exactly once (a cancelled one with a cancellation, unless it had
    /// succeeded already), and every operation finishes.
    func testAStormOfCancelledSeedOperationsCallsBackOnceEach() {
        routeSignIn(delay: 0.02)
        let host = makeHost()
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        let total = 160
        var seeds: [(SignInOperation, Reports)] = []
        var ops: [Operation] = []
        var typed: [RequestOperation<Any?>] = []
        for index in 0..<total {
            if index % 2 == 0 {
                let op = SignInOperation(userName: "u\(index)", password: "secret", configuration: host)
                let reports = Reports()
                reports.watch(op)
                seeds.append((op, reports))
                ops.append(op)
            } else {
                let op = RequestOperation(request: TestRequest("/delay/20"), configuration: host, responseDecoder: .json)
                typed.append(op)
                ops.append(op)
            }
        }
        var generator = SystemRandomNumberGenerator()
        let cancelled = Set((0..<total).filter { _ in Bool.random(using: &generator) })
        let beforeAdding = cancelled.filter { $0 % 3 == 0 }
        for index in beforeAdding { ops[index].cancel() }
        queue.addOperations(ops, waitUntilFinished: false)
        for index in cancelled.subtracting(beforeAdding) {
            let op = ops[index]
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 0..<400, using: &generator))) {
                op.cancel()
            }
        }
        settle(ops, seeds.map(\.1), timeout: 60)
        XCTAssertTrue(ops.allSatisfy(\.isFinished), "every operation finishes")
        XCTAssertEqual(queue.operationCount, 0)
        var silent = 0
        for (index, (op, reports)) in seeds.enumerated() {
            if reports.calls == 0 { silent += 1 }
            XCTAssertLessThanOrEqual(reports.calls, 1, "seed \(index) called back \(reports.calls) times")
            if let error = reports.failures.values.first {
                XCTAssertTrue(op.isCancelled && (error as? NetworkError)?.isCancelled == true, "seed \(index): \(error)")
            }
        }
        XCTAssertEqual(silent, 0, "\(silent) of \(seeds.count) seed operations never called back")
    }
}

