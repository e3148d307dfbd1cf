@testable import EasyNetwork
@testable import EasyNetworkPlugins
import Foundation
import XCTest

/// One refresh, whatever the callers' timing: a caller that decides to refresh marks the
/// refresh as running in the same step, so one that comes right after waits for it, even
/// when the first is descheduled between its decision and the refresh's start (as under
/// load, where `TokenRefreshTests` once saw two refreshes for three requests).
final class TokenAuthenticatorSingleFlightTests: XCTestCase {
    func testCallersWithoutATokenStartOneRefreshWhenTheFirstIsSlowToStartIt() {
        assertOneRefresh(token: nil, after: nil)
    }

    func testUnauthorizedCallersStartOneRefreshWhenTheFirstIsSlowToStartIt() {
        assertOneRefresh(token: "t0", after: 0)
    }

    /// The first caller decides, then is held (in `parked`, between its decision and the
    /// refresh) until the second has decided; the second is held until the first has its
    /// token. Before the fix the second decided to refresh too and started a second refresh
    /// once the first had ended.
    private func assertOneRefresh(token: String?, after sent: Int?, file: StaticString = #filePath, line: UInt = #line) {
        let refreshes = Protected(0)
        let authenticator = TokenAuthenticator(token: token) { done in
            let count = refreshes.write { $0 += 1; return $0 }
            done(.success("t\(count)"))
        }
        let firstDecided = DispatchSemaphore(value: 0)
        let secondDecided = DispatchSemaphore(value: 0)
        let firstAnswered = DispatchSemaphore(value: 0)
        let tokens = Protected<[String?]>([])
        let group = DispatchGroup()
        // Both calls returned: whatever either started (a refresh answers at once) has run.
        let returned = DispatchGroup()
        group.enter()
        returned.enter()
        DispatchQueue.global().async {
            authenticator.credential(after: sent, parked: {
                firstDecided.signal()
                _ = secondDecided.wait(timeout: .now() + 5)
            }) { result in
                tokens.write { $0.append(try? result.get().token) }
                firstAnswered.signal()
                group.leave()
            }
            returned.leave()
        }
        XCTAssertEqual(firstDecided.wait(timeout: .now() + 5), .success, "the first caller must wait", file: file, line: line)
        group.enter()
        returned.enter()
        DispatchQueue.global().async {
            authenticator.credential(after: sent, parked: {
                secondDecided.signal()
                _ = firstAnswered.wait(timeout: .now() + 5)
            }) { result in
                tokens.write { $0.append(try? result.get().token) }
                group.leave()
            }
            returned.leave()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success, "both callers get an answer", file: file, line: line)
        XCTAssertEqual(returned.wait(timeout: .now() + 10), .success, "both calls return", file: file, line: line)
        XCTAssertEqual(refreshes.read { $0 }, 1, "one refresh for both callers", file: file, line: line)
        XCTAssertEqual(tokens.read { $0 }, ["t1", "t1"], file: file, line: line)
        XCTAssertEqual(authenticator.token, "t1", "no later refresh replaced the token both were given", file: file, line: line)
    }
}
