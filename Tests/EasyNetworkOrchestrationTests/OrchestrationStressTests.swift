import EasyNetwork
import EasyNetworkOrchestration
import EasyNetworkTesting
import Foundation
import XCTest

/// 2,000 operations in chains, batches and tagged groups with random cancels: every
/// completion fires exactly once and nothing hangs.
final class OrchestrationStressTests: ServerTestCase {
    func testTwoThousandOperationsInChainsBatchesAndGroupsWithRandomCancels() {
        server.route("GET", "/number") { request in
            let items = Dictionary(uniqueKeysWithValues: request.queryItems.map { ($0.name, $0.value ?? "") })
            let reply = LoopbackReply.json(items["i"] ?? "0")
            let delay = Double(items["delay"] ?? "0") ?? 0
            return delay > 0 ? .delayed(delay / 1000, reply) : reply
        }
        server.route("GET", "/chain/sign-in") { _ in .json(#"{"token": "tk-1"}"#) }
        server.route("GET", "/chain/account") { _ in .json(#"{"id": 42, "plan": "pro"}"#) }
        server.route("GET", "/chain/invoice") { _ in .json(#"{"total": 1}"#) }

        let host = makeHost()
        host.coalescesRequests = true
        let queue = NetworkQueue(maxConcurrentOperationCount: 8)
        var random = SystemRandomNumberGenerator()
        func later(_ body: @escaping @Sendable () -> Void) {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 0..<400)), execute: body)
        }

        // 100 chains of 3 steps: 300 operations.
        let chainReports = (0..<100).map { _ in Collector<Bool>() }
        for index in 0..<100 {
            let handle = RequestChain(SignInStep(), configuration: host)
                .then { AccountStep(token: $0.token) }
                .then { InvoiceStep(accountID: $0.id) }
                .start(on: queue) { result in chainReports[index].append((try? result.get()) != nil) }
            if Int.random(in: 0..<3, using: &random) == 0 { later { handle.cancel() } }
        }

        // 20 batches of 50: 1,000 operations, each member's own completion counted too.
        let batchReports = (0..<20).map { _ in Collector<Int>() }
        let memberReports = (0..<1000).map { _ in Collector<Bool>() }
        for index in 0..<20 {
            let requests = (0..<50).map { Numbered(index: index * 50 + $0, delayMS: Int.random(in: 0..<15, using: &random), fails: Int.random(in: 0..<10, using: &random) == 0) }
            let batch = RequestBatch(requests: requests, configuration: host, policy: index % 2 == 0 ? .failFast : .settleAll)
            for (offset, member) in batch.operations.enumerated() {
                member.completion = { result in memberReports[index * 50 + offset].append((try? result.get()) != nil) }
                if Int.random(in: 0..<20, using: &random) == 0 { later { member.cancel() } }
            }
            batch.completion = { results in batchReports[index].append(results.count) }
            batch.start(on: queue)
            if Int.random(in: 0..<4, using: &random) == 0 { later { batch.cancel() } }
        }

        // 700 loose operations in 7 tagged groups; two groups cancelled, one bag released.
        let looseReports = (0..<700).map { _ in Collector<Bool>() }
        var bag: CancellationBag? = CancellationBag()
        var loose: [RequestOperation<Int>] = []
        for index in 0..<700 {
            let op = RequestOperation<Int>(request: Numbered(index: index, delayMS: Int.random(in: 0..<10, using: &random), fails: false), configuration: host, responseDecoder: .decodable())
            op.tags = ["group-\(index % 7)"]
            op.completion = { result in looseReports[index].append((try? result.get()) != nil) }
            if index % 7 == 6 { bag?.insert(op) }
            if Int.random(in: 0..<25, using: &random) == 0 { op.cancel() }
            loose.append(op)
        }
        queue.addOperations(loose, waitUntilFinished: false)
        later { queue.cancelOperations(tagged: "group-2") }
        later { queue.cancelOperations(tagged: "group-4") }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { [bag] in _ = bag }
        bag = nil

        let all: [() -> Int] = [
            { chainReports.filter { $0.count > 0 }.count },
            { batchReports.filter { $0.count > 0 }.count },
            { memberReports.filter { $0.count > 0 }.count },
            { looseReports.filter { $0.count > 0 }.count },
        ]
        let expected = [100, 20, 1000, 700]
        let deadline = Date().addingTimeInterval(60)
        while zip(all, expected).contains(where: { $0() < $1 }) && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.01))
        }
        RunLoop.current.run(until: Date().addingTimeInterval(0.2))
        callbackQueue.sync {}

        XCTAssertEqual(chainReports.map(\.count), Array(repeating: 1, count: 100), "every chain completes once")
        XCTAssertEqual(batchReports.map(\.count), Array(repeating: 1, count: 20), "every batch completes once")
        XCTAssertEqual(batchReports.map { $0.values.first ?? 0 }, Array(repeating: 50, count: 20), "with every member's result")
        XCTAssertEqual(memberReports.map(\.count), Array(repeating: 1, count: 1000), "every member reports once")
        XCTAssertEqual(looseReports.map(\.count), Array(repeating: 1, count: 700), "every operation reports once")
        XCTAssertEqual(queue.operationCount, 0, "nothing is left running")
        XCTAssertGreaterThan(chainReports.filter { $0.values.first == true }.count, 30, "chains that were not cancelled succeed")
    }
}
