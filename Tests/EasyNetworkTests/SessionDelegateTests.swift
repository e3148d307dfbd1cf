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
                    outcomes.append("\(path) \(error.statusCode.map(String.init) ?? (error.isTimeout ? "timeout" : "\(error.kind)"))")
                    done.fulfill()
                })
            }
        }
        wait(for: [done], timeout: 10)
        // Each ending was really taken, three times.
        let expected = ["/status/200 ok", "/status/401?challenge=1 401", "/status/401 401", "/status/500 500",
                        "/close transport", "/reset transport", "/delay/2000 timeout"]
        for ending in expected {
            XCTAssertEqual(outcomes.values.filter { $0 == ending }.count, 3, "\(ending) in \(outcomes.values.sorted())")
        }
        // The delegate forgets a task before its completion runs, so nothing is left
        // by the time the last callback arrived.
        XCTAssertEqual(host.transport.trackedTaskCount, 0)
        withExtendedLifetime(services) {}
    }
}
