import EasyNetworkBackoff
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Retry-After` as RFC 9110 has it: delta-seconds or an HTTP date (the preferred form and
/// the two obsolete ones), never negative, garbage ignored.
final class RetryAfterTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    func testDeltaSecondsAndEveryDateForm() {
        XCTAssertEqual(RetryAfter.seconds("120", now: now), 120)
        XCTAssertEqual(RetryAfter.seconds(" 1.5 ", now: now), 1.5)
        XCTAssertEqual(RetryAfter.seconds("Sun, 06 Nov 1994 08:50:07 GMT", now: now), 30)
        XCTAssertEqual(RetryAfter.seconds("Sunday, 06-Nov-94 08:50:07 GMT", now: now), 30)
        XCTAssertEqual(RetryAfter.seconds("Sun Nov  6 08:50:07 1994", now: now), 30)
        XCTAssertEqual(RetryAfter.seconds("Sun, 06 Nov 1994 08:00:00 GMT", now: now), 0, "a date in the past: no wait")
    }

    func testGarbageAndNegativeValuesAreIgnored() {
        for value in ["", "soon", "-5", "nan", "inf", "Sun, 06 Nov 1994"] {
            XCTAssertNil(RetryAfter.seconds(value, now: now), value)
        }
        let response = HTTPURLResponse(url: URL(string: "http://127.0.0.1")!, statusCode: 503, httpVersion: nil, headerFields: ["Retry-After": "7"])
        XCTAssertEqual(RetryAfter.seconds(in: response, now: now), 7)
        XCTAssertNil(RetryAfter.seconds(in: nil, now: now))
    }
}
