@testable import EasyNetworkPlugins
import XCTest

/// The order and masking of the header lines the logger and `CURLCommand` print.
final class HeaderLinesTests: XCTestCase {
    func testLinesAreOrderedByNameIgnoringCaseAndMasked() {
        let fields = ["c-third": "3", "B-second": "2", "X-Api-Key": "key", "a-first": "1", "D-fourth": "4", "authorization": "Bearer t"]
        XCTAssertEqual(
            HeaderLines.of(fields, redaction: .default),
            ["a-first: 1", "authorization: <redacted>", "B-second: 2", "c-third: 3", "D-fourth: 4", "X-Api-Key: <redacted>"]
        )
        XCTAssertEqual(
            HeaderLines.of(fields, redaction: nil),
            ["a-first: 1", "authorization: Bearer t", "B-second: 2", "c-third: 3", "D-fourth: 4", "X-Api-Key: key"]
        )
    }

    func testEmptyAndLongLists() {
        XCTAssertEqual(HeaderLines.of([:], redaction: .default), [])
        let names = (0..<40).map { index in index % 2 == 0 ? "h\(100 - index)" : "H\(100 - index)" }
        let lines = HeaderLines.of(Dictionary(uniqueKeysWithValues: names.map { ($0, "v") }), redaction: nil)
        XCTAssertEqual(lines, names.sorted { $0.lowercased() < $1.lowercased() }.map { "\($0): v" })
    }
}
