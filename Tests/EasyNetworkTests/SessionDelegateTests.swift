@testable import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

/// The session delegate keeps per-task state only while a task runs, whatever way it ends.
final class SessionDelegateTests: ServerTestCase {
    func testNoTaskStateLingersAfterAnyEnding() {
        let host = makeHost()
        let paths = ["/status/200", "/status/401?challenge=1", "/status/401", "/status/500", "/close", "/reset", "/delay/2000"]
        let done = expectation(description: "all ended")
        done.expectedFulfillmentCount = paths.count * 3
        let outcomes = Collector<String>()
        var services: [EasyNetworkService] = []
        for _ in 0..<3 {
            for path in paths {
                let service = EasyNetworkService(host)
                services.append(service)
                let request = TestRequest(path, timeout: path.hasPrefix("/delay") ? 0.3 : 5)
                service.request(request, success: { _ in
                    outcomes.append("\(path) ok")
                    done.fulfill()
                }, failure: { error in
                    outcomes.append("\(path) \(error.statusCode.map(String.init) ?? "\(error.kind)")")
                    done.fulfill()
                })
            }
        }
        wait(for: [done], timeout: 10)
        let ended = Set(outcomes.values)
        XCTAssertTrue(ended.contains("/status/401?challenge=1 401"), "\(ended.sorted())")
        XCTAssertTrue(ended.contains("/status/200 ok"), "\(ended.sorted())")
        // The delegate queue may still be finishing the last completion handler.
        let deadline = Date().addingTimeInterval(2)
        while host.transport.trackedTaskCount > 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        XCTAssertEqual(host.transport.trackedTaskCount, 0)
        withExtendedLifetime(services) {}
    }
}
