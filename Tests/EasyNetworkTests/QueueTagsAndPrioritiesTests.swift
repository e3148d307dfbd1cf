import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

/// Groups of operations on a queue: cancelling by tag, and priorities (moved here from
/// OrchestrationTests when chains and batches became their own product).
final class QueueTagsAndPrioritiesTests: ServerTestCase {
    private let queue = NetworkQueue(maxConcurrentOperationCount: 8)

    // MARK: tags

    func testCancelByTag() {
        let host = makeHost()
        let tagged = (0..<4).map { _ -> RequestOperation<Any?> in
            let op = RequestOperation(request: TestRequest("/delay/3000"), configuration: host, responseDecoder: .json)
            op.tags = ["profile-screen"]
            return op
        }
        let other = RequestOperation(request: TestRequest("/delay/200"), configuration: host, responseDecoder: .json)
        queue.addOperations(tagged + [other], waitUntilFinished: false)
        waitForRequests(path: "/delay/3000", count: 4)
        queue.cancelOperations(tagged: "profile-screen")
        tagged.forEach { waitUntilFinished($0, timeout: 2) }
        waitUntilFinished(other)
        callbackQueue.sync {}
        XCTAssertTrue(tagged.allSatisfy { if case .failure(let e)? = $0.result { return e.isCancelled } else { return false } })
        XCTAssertNoThrow(try other.result?.get())
    }

    // MARK: priorities

    func testHighPriorityBehindAHundredLowOnesStartsNext() {
        let host = makeHost()
        let narrow = NetworkQueue(maxConcurrentOperationCount: 1)
        let blocker = RequestOperation(request: TestRequest("/delay/200", params: ["op": "blocker"]), configuration: host, responseDecoder: .json)
        narrow.addOperation(blocker)
        waitForRequests(path: "/delay/200", count: 1)
        let low = (0..<100).map { index -> RequestOperation<Any?> in
            let op = RequestOperation(request: TestRequest("/echo", params: ["op": "low\(index)"]), configuration: host, responseDecoder: .json)
            op.queuePriority = .low
            return op
        }
        narrow.addOperations(low, waitUntilFinished: false)
        let urgent = RequestOperation(request: TestRequest("/echo", params: ["op": "urgent"]), configuration: host, responseDecoder: .json)
        urgent.queuePriority = .veryHigh
        narrow.addOperation(urgent)
        waitUntilFinished(urgent)
        narrow.cancelAllOperations()
        XCTAssertEqual(server.requests(path: "/echo").first?.queryItems.first?.value, "urgent")
    }
}
