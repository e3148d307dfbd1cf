import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``TransportStage``: the bytes of a response arrive whole through the host's session.
final class TransportStageTests: ServerTestCase {
    func testLargeBodyArrivesIntact() {
        let host = makeHost()
        let done = expectation(description: "large")
        let op = RequestOperation<Data>(request: TestRequest("/large/3000000"), configuration: host) { $0.data }
        op.success = { data in
            XCTAssertEqual(data.count, 3_000_000)
            XCTAssertTrue(data.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) })
            done.fulfill()
        }
        NetworkQueue(maxConcurrentOperationCount: 1).addOperation(op)
        wait(for: [done], timeout: 20)
    }

    func testSlowChunkedBodyArrivesWhole() {
        let result = send(TestRequest("/slow-body", params: ["chunks": 4, "interval_ms": 50]))
        XCTAssertNotNil(value(of: result) as? [Any])
    }
}
