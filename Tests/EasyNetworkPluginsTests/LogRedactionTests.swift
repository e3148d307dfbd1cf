import EasyNetworkPlugins
import Foundation
import XCTest

/// LogRedaction on caller- and server-sized input: linear in the text, bounded in depth.
final class LogRedactionTests: XCTestCase {
    /// A form field named with 70,000 escaped characters (420 KB): masked or kept, in well
    /// under a second (0.4 s in a debug build; the hardening issue's hang was a 70,000-character
    /// name going through Foundation's percent decoding, which this path also uses).
    func testALongEscapedFormFieldNameIsRedactedInOnePass() throws {
        let name = String(repeating: "%C3%A9", count: 70_000)
        let body = Data((name + "=1&password=hunter2&" + name + "[token]=abc").utf8)
        let text = try XCTUnwrap(LogRedaction.default.describeBody(body, contentType: "application/x-www-form-urlencoded", limit: .max))
        XCTAssertFalse(text.contains("hunter2"))
        XCTAssertFalse(text.contains("abc"))
        XCTAssertTrue(text.hasPrefix(name + "=1&password=<redacted>&"))
    }

    /// The same name in a URL's query: the logged URL masks the token and keeps the rest.
    func testALongEscapedQueryNameIsRedactedInOnePass() throws {
        let name = String(repeating: "%C3%A9", count: 70_000)
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1/a?" + name + "=1&token=abc#f"))
        let text = LogRedaction.default.redact(url)
        XCTAssertEqual(text, "http://127.0.0.1/a?" + name + "=1&token=<redacted>#f")
    }

    /// A reply body of 200,000 nested arrays: described (Foundation's parser refuses a depth
    /// past its limit, and the body is shown as text), never a stack overflow in the
    /// redaction's own recursion.
    func testADeeplyNestedJSONBodyIsDescribedWithoutRecursingPastTheStack() throws {
        let depth = 200_000
        let body = Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        let text = LogRedaction.default.describeBody(body, contentType: "application/json", limit: 100)
        XCTAssertEqual(text, String(repeating: "[", count: 100) + "… (400000 bytes in all)")
    }
}
