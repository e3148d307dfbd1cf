import EasyNetwork
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RetryPolicy` as plain data: its settings live in one immutable box, and each setter
/// makes a new box with one value changed, so every other value, and every copy made
/// before, must stay as it was.
final class RetryPolicyValueTests: XCTestCase {
    private func values(_ policy: RetryPolicy) -> String {
        [
            String(policy.maxAttempts), String(policy.baseDelay), String(policy.multiplier),
            String(policy.maxDelay), String(policy.jitter),
            policy.retryableStatusCodes.sorted().map(String.init).joined(separator: ","),
            policy.retryableURLErrorCodes.map(\.rawValue).sorted().map(String.init).joined(separator: ","),
            String(policy.retriesNonIdempotentMethods), String(policy.honorsRetryAfter), String(policy.maxRetryAfter),
        ].joined(separator: "|")
    }

    func testEachSetterChangesOnlyItsOwnValue() {
        let base = RetryPolicy(maxAttempts: 4, baseDelay: 1, multiplier: 3, maxDelay: 9, jitter: 0.5,
                               retryableStatusCodes: [503], retryableURLErrorCodes: [.timedOut],
                               retriesNonIdempotentMethods: false, honorsRetryAfter: true, maxRetryAfter: 20)
        let before = values(base)
        let changes: [(String, (inout RetryPolicy) -> Void)] = [
            ("maxAttempts", { $0.maxAttempts = 7 }),
            ("baseDelay", { $0.baseDelay = 2 }),
            ("multiplier", { $0.multiplier = 5 }),
            ("maxDelay", { $0.maxDelay = 11 }),
            ("jitter", { $0.jitter = 0.1 }),
            ("retryableStatusCodes", { $0.retryableStatusCodes = [500, 502] }),
            ("retryableURLErrorCodes", { $0.retryableURLErrorCodes = [.cannotFindHost] }),
            ("retriesNonIdempotentMethods", { $0.retriesNonIdempotentMethods = true }),
            ("honorsRetryAfter", { $0.honorsRetryAfter = false }),
            ("maxRetryAfter", { $0.maxRetryAfter = 3 }),
        ]
        for (index, (name, change)) in changes.enumerated() {
            var policy = base
            change(&policy)
            let old = before.split(separator: "|", omittingEmptySubsequences: false)
            let new = values(policy).split(separator: "|", omittingEmptySubsequences: false)
            XCTAssertEqual(old.count, new.count)
            for field in old.indices {
                if field == index {
                    XCTAssertNotEqual(old[field], new[field], "\(name) did not change")
                } else {
                    XCTAssertEqual(old[field], new[field], "setting \(name) changed field \(field)")
                }
            }
            XCTAssertEqual(values(base), before, "setting \(name) on a copy changed the original")
        }
    }
}
