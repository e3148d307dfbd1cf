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

    /// With no token yet, a failed refresh is not started again by each new request: they
    /// fail at once with its error for the window, as requests holding a refused token do,
    /// so a fleet whose refresh endpoint is down sends it one refresh per window each.
    func testRequestsWithoutATokenDoNotRetryAFailedRefreshWithinTheWindow() {
        let clock = Protected<TimeInterval>(1_000)
        let refreshes = Protected(0)
        let authenticator = TokenAuthenticator(token: nil, maxRefreshes: 3, refreshWindow: 30) { done in
            refreshes.write { $0 += 1 }
            done(.failure(URLError(.badServerResponse)))
        }
        authenticator.uptime = { clock.read { $0 } }
        func firstAttempt() -> Result<TokenAuthenticator.Credential, NetworkError>? {
            let result = Protected<Result<TokenAuthenticator.Credential, NetworkError>?>(nil)
            authenticator.credential { outcome in result.write { $0 = outcome } }
            return result.read { $0 }
        }
        for _ in 0..<10 {
            guard case .failure(let error)? = firstAttempt() else { return XCTFail("no token: the request fails") }
            XCTAssertEqual(error.kind, .authentication)
        }
        XCTAssertEqual(refreshes.read { $0 }, 1, "one refresh, then its failure for the window")
        clock.write { $0 += 31 }
        _ = firstAttempt()
        XCTAssertEqual(refreshes.read { $0 }, 2, "past the window the refresh runs again")
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
