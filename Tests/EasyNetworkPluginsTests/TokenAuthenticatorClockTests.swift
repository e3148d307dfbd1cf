@testable import EasyNetwork
@testable import EasyNetworkPlugins
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The refresh window is measured on a monotonic clock, never on the wall clock.
final class TokenAuthenticatorClockTests: XCTestCase {
    func testRefreshWindowUsesTheInjectedMonotonicClock() {
        let clock = Protected<TimeInterval>(1_000)
        let refreshes = Protected(0)
        let authenticator = TokenAuthenticator(token: "t0", maxRefreshes: 1, refreshWindow: 30) { done in
            let count = refreshes.write { $0 += 1; return $0 }
            done(.success("t\(count)"))
        }
        authenticator.uptime = { clock.read { $0 } }
        func unauthorized(_ generation: Int) -> Result<TokenAuthenticator.Credential, NetworkError>? {
            let result = Protected<Result<TokenAuthenticator.Credential, NetworkError>?>(nil)
            authenticator.credential(after: generation) { outcome in result.write { $0 = outcome } }
            return result.read { $0 }
        }
        guard case .success(let first)? = unauthorized(0) else { return XCTFail("the first refresh runs") }
        clock.write { $0 += 29 }
        guard case .failure? = unauthorized(first.generation) else { return XCTFail("a second refresh within 30 s is refused") }
        clock.write { $0 += 2 }
        guard case .success? = unauthorized(first.generation) else { return XCTFail("past the window the refresh runs again") }
        XCTAssertEqual(refreshes.read { $0 }, 2)
    }

    func testOutOfRangeRefreshTimeoutsNeitherCrashNorFireAtOnce() {
        for timeout in [0, -1, .nan, .infinity, .greatestFiniteMagnitude] as [TimeInterval] {
            let authenticator = TokenAuthenticator(token: "t0", refreshTimeout: timeout) { _ in }
            let outcome = Protected<Result<TokenAuthenticator.Credential, NetworkError>?>(nil)
            authenticator.credential(after: 0) { result in outcome.write { $0 = result } }
            usleep(50_000)
            XCTAssertNil(outcome.read { $0 }, "timeout \(timeout): still waiting")
        }
    }

    func testDefaultClockIsMonotonic() {
        let authenticator = TokenAuthenticator(token: "t0") { done in done(.success("t1")) }
        let before = ProcessInfo.processInfo.systemUptime
        let reading = authenticator.uptime()
        XCTAssertEqual(reading, before, accuracy: 1, "the system uptime, not seconds since 1970")
    }
}
