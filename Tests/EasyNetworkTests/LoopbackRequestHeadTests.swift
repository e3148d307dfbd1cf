@testable import EasyNetworkTesting
import XCTest

/// The loopback server's request-head parsing: field names without regard to ASCII
/// case, values without surrounding spaces and tabs, conflicting lengths refused.
final class LoopbackRequestHeadTests: XCTestCase {
    private func head(_ text: String) -> LoopbackRequestHead? {
        LoopbackRequestHead(bytes: ArraySlice(Array(text.utf8)))
    }

    func testFieldNamesIgnoreCaseAndValuesLoseSpacesAndTabs() throws {
        let parsed = try XCTUnwrap(head("GET /a/b?x=1&y=2 HTTP/1.1\r\nx-TOKEN: \t abc def \t\r\nX-Name:  héllo wörld  \r\nX-Empty: \t \r\nConnection:  Close "))
        XCTAssertEqual(parsed.header("X-Token"), "abc def")
        XCTAssertEqual(parsed.header("x-name"), "héllo wörld")
        XCTAssertEqual(parsed.header("X-EMPTY"), "")
        XCTAssertNil(parsed.header("X-Toke"))
        XCTAssertTrue(parsed.wantsClose)
        XCTAssertEqual(parsed.pathAndQuery.path, "/a/b")
        XCTAssertEqual(parsed.pathAndQuery.query, "x=1&y=2")
    }

    func testContentLengthIsFoundInAnyCaseAndConflictsAreRefused() throws {
        XCTAssertEqual(head("POST / HTTP/1.1\r\nCONTENT-LENGTH: 3")?.contentLength, 3)
        XCTAssertEqual(head("POST / HTTP/1.1\r\nContent-Length: 5\r\ncontent-length: 5")?.contentLength, 5)
        XCTAssertNil(head("POST / HTTP/1.1\r\nContent-Length: 5\r\ncontent-length: 6"))
        XCTAssertNil(head("POST / HTTP/1.1\r\nContent-Length: -1"))
        XCTAssertNil(head("POST / HTTP/1.1\r\nContent-Length: +5"))
        XCTAssertNil(head("POST / HTTP/1.1\r\nContent-Length: "))
        XCTAssertEqual(head("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 05")?.contentLength, 5, "the same number twice")
    }

    func testTargetsSplitIntoPathAndQuery() throws {
        let absolute = try XCTUnwrap(head("GET http://127.0.0.1:8080/p/q?z=1?2 HTTP/1.1"))
        XCTAssertEqual(absolute.pathAndQuery.path, "/p/q")
        XCTAssertEqual(absolute.pathAndQuery.query, "z=1?2")
        let bare = try XCTUnwrap(head("GET http://127.0.0.1 HTTP/1.1"))
        XCTAssertEqual(bare.pathAndQuery.path, "/")
        XCTAssertNil(bare.pathAndQuery.query)
        let authorityThenQuery = try XCTUnwrap(head("GET http://h?x=1&to=/b HTTP/1.1"))
        XCTAssertEqual(authorityThenQuery.pathAndQuery.path, "/")
        XCTAssertEqual(authorityThenQuery.pathAndQuery.query, "x=1&to=/b")
        let fragments = try XCTUnwrap(head("GET /p?x#f HTTP/1.1"))
        XCTAssertEqual(fragments.pathAndQuery.path, "/p")
        XCTAssertEqual(fragments.pathAndQuery.query, "x")
        XCTAssertEqual(try XCTUnwrap(head("GET /p#f?x HTTP/1.1")).pathAndQuery.path, "/p")
        XCTAssertNil(try XCTUnwrap(head("GET /p#f?x HTTP/1.1")).pathAndQuery.query)
        XCTAssertEqual(try XCTUnwrap(head("OPTIONS * HTTP/1.1")).pathAndQuery.path, "*")
        let emptyQuery = try XCTUnwrap(head("GET /p%20q? HTTP/1.1"))
        XCTAssertEqual(emptyQuery.pathAndQuery.path, "/p%20q")
        XCTAssertEqual(emptyQuery.pathAndQuery.query, "")
        XCTAssertNil(head("GET /p HTTP/2"))
        XCTAssertNil(head("GET /p HTTP/1.1\r\nBad Name: x"))
    }

    func testKeepAliveUnlessCloseOrHTTP10() throws {
        XCTAssertFalse(try XCTUnwrap(head("GET / HTTP/1.1\r\nConnection: keep-alive")).wantsClose)
        XCTAssertTrue(try XCTUnwrap(head("GET / HTTP/1.1\r\nConnection: upgrade,\tclose")).wantsClose)
        XCTAssertTrue(try XCTUnwrap(head("GET / HTTP/1.0")).wantsClose)
    }

    func testNameComparisonIsASCIIOnly() {
        XCTAssertTrue(HTTPFieldText.sameName("Content-Type", "content-TYPE"))
        XCTAssertFalse(HTTPFieldText.sameName("Content-Type", "Content-Typ"))
        XCTAssertFalse(HTTPFieldText.sameName("X-Ä", "x-ä"), "only ASCII letters fold")
        XCTAssertFalse(HTTPFieldText.sameName("X-[", "x-{"), "punctuation next to the letters does not fold")
        XCTAssertEqual(HTTPFieldText.trimmed(" \t\t "), "")
        XCTAssertEqual(HTTPFieldText.trimmed("\tä b\t"), "ä b")
        XCTAssertEqual(HTTPFieldText.trimmed("\u{00A0}v\u{00A0} "), "\u{00A0}v\u{00A0}", "only spaces and tabs surround a value")
    }
}
