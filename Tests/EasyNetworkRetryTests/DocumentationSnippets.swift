import EasyNetwork
import EasyNetworkRetry
import Foundation
import XCTest

/// The Swift blocks of the EasyNetworkRetry catalog, compiled and run as written
/// (DocumentationTests, in EasyNetworkTests, checks each block appears here line for line).
final class DocumentationSnippets: XCTestCase {
    func testTheOverviewSetsEveryRule() {
        let host = HostConfiguration(baseURL: URL(string: "https://api.example.com"))
        // import EasyNetworkRetry
        host.retryPolicy = .default                     // 3 attempts, 0.5 s then 1 s (±25 %)
        host.retryBudget = RetryBudget()                // the default: stop retrying after 3 failures in a row
        host.backpressure = Backpressure()              // the default: a 429/503 Retry-After pauses the host
        host.circuitBreaker = CircuitBreaker()          // opt-in: after 5 failures in a row, nothing sent for 5-7.5 s
        XCTAssertEqual(host.retryPolicy.maxAttempts, 3)
        XCTAssertEqual(host.retryBudget, .default)
        XCTAssertEqual(host.backpressure, .default)
        XCTAssertEqual(host.circuitBreaker, .default)
    }

    func configureRetries(of host: HostConfiguration) {
        // import EasyNetworkRetry
        host.retryPolicy = .default                  // installs the engine: budget and backpressure on
        host.circuitBreaker = CircuitBreaker(failureThreshold: 5, coolDown: 5)   // opt-in
    }

    func testTheArticleConfiguresAHost() {
        let host = HostConfiguration(baseURL: URL(string: "https://api.example.com"))
        configureRetries(of: host)
        XCTAssertEqual(host.retryBudget, .default)
        XCTAssertEqual(host.circuitBreaker?.failureThreshold, 5)
    }
}
