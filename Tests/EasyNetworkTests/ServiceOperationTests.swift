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
}
