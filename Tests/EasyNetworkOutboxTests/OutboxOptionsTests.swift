@testable import EasyNetworkOutbox
import Foundation
import XCTest

/// Options are fixed when made: the initializer brings every value into its range, and
/// nothing can take it out afterwards (the properties are constants).
final class OutboxOptionsTests: XCTestCase {
    func testTheInitializerBringsEveryValueIntoItsRange() {
        let options = OutboxOptions(
            maxEntries: 0, maxBytes: -5, width: 0, maxAttempts: -1, maxAge: -1, retryDelay: -1, maxRetryDelay: -1, lockRetryInterval: -1
        )
        XCTAssertEqual([options.maxEntries, options.maxBytes, options.width, options.maxAttempts], [1, 1, 1, 1])
        XCTAssertEqual([options.maxAge, options.retryDelay, options.maxRetryDelay, options.lockRetryInterval], [0, 0, 0, 0])
        let defaults = OutboxOptions()
        XCTAssertEqual(defaults.whenFull, .refuse)
        XCTAssertEqual(defaults.lockRetryInterval, 1)
        XCTAssertEqual(defaults.idempotencyHeader, "Idempotency-Key")
        XCTAssertEqual(defaults.unstoredHeaders, ["Proxy-Authorization", "Set-Cookie", "X-API-Key"])
        // That they stay off the disk in any case: OutboxTests.testUnstoredHeadersStayOffTheDiskWhateverTheirCase.
    }
}
