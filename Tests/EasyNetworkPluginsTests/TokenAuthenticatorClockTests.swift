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

    /// A refresh window that is infinite, NaN or not positive neither crashes nor stops
    /// refreshing: the authenticator refreshes, and then limits as its documentation says
    /// (an infinite window is a year; NaN or not positive, the default 30 s).
    func testOutOfRangeRefreshWindowsNeitherCrashNorStopRefreshing() {
        for window in [.infinity, .greatestFiniteMagnitude, .nan, 0, -5] as [TimeInterval] {
            let clock = Protected<TimeInterval>(1_000)
            let refreshes = Protected(0)
            let authenticator = TokenAuthenticator(token: nil, maxRefreshes: 2, refreshWindow: window) { done in
                let count = refreshes.write { $0 += 1; return $0 }
                done(.success("t\(count)"))
            }
            authenticator.uptime = { clock.read { $0 } }
            func credential(after sent: Int?) -> Result<TokenAuthenticator.Credential, NetworkError>? {
                let result = Protected<Result<TokenAuthenticator.Credential, NetworkError>?>(nil)
                authenticator.credential(after: sent) { outcome in result.write { $0 = outcome } }
                return result.read { $0 }
            }
            guard case .success(let first)? = credential(after: nil) else { return XCTFail("window \(window): no token, the first request refreshes") }
            XCTAssertEqual(first.token, "t1", "window \(window)")
            guard case .success(let second)? = credential(after: first.generation) else { return XCTFail("window \(window): a 401 refreshes once more") }
            XCTAssertEqual(second.token, "t2", "window \(window)")
            guard case .failure(let error)? = credential(after: second.generation) else { return XCTFail("window \(window): a third refresh at once is refused") }
            XCTAssertEqual(error.kind, .authentication, "window \(window)")
            let seconds = window.isFinite && window > 0 ? min(window, 365 * 86_400) : window.isNaN || window <= 0 ? 30 : 365 * 86_400
            XCTAssertTrue(error.localizedDescription.contains("2 times in " + String(Int(seconds)) + " s"), "window \(window): \(error.localizedDescription)")
            clock.write { $0 += seconds + 1 }
            guard case .success? = credential(after: second.generation) else { return XCTFail("window \(window): past the window it refreshes again") }
            XCTAssertEqual(refreshes.read { $0 }, 3, "window \(window)")
        }
    }

    /// A refresh limit too large to keep a slot per refresh (the ring of refresh times)
    /// neither traps nor allocates without bound: it is capped at 1,000 per window.
    func testAHugeRefreshLimitIsCappedNotAllocated() {
        let refreshes = Protected(0)
        let authenticator = TokenAuthenticator(token: "t0", maxRefreshes: .max) { done in
            let count = refreshes.write { $0 += 1; return $0 }
            done(.success("t\(count)"))
        }
        var generation = 0
        for round in 1...1_001 {
            let result = Protected<Result<TokenAuthenticator.Credential, NetworkError>?>(nil)
            authenticator.credential(after: generation) { outcome in result.write { $0 = outcome } }
            switch result.read({ $0 }) {
            case .success(let credential)?:
                XCTAssertLessThanOrEqual(round, 1_000, "at most 1,000 refreshes in the window")
                generation = credential.generation
            case .failure(let error)?:
                XCTAssertEqual(round, 1_001, "the 1,001st refresh in the window is refused: \(error.localizedDescription)")
                XCTAssertTrue(error.localizedDescription.contains("1000 times in 30 s"), error.localizedDescription)
            case nil:
                return XCTFail("round \(round): the refresh answers at once")
            }
        }
        XCTAssertEqual(refreshes.read { $0 }, 1_000)
    }

    func testDefaultClockIsMonotonic() {
        let authenticator = TokenAuthenticator(token: "t0") { done in done(.success("t1")) }
        let before = ProcessInfo.processInfo.systemUptime
        let reading = authenticator.uptime()
        XCTAssertEqual(reading, before, accuracy: 1, "the system uptime, not seconds since 1970")
    }
}
