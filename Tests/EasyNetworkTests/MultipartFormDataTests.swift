@testable import EasyNetwork
@testable import EasyNetworkUploads
import EasyNetworkTesting
import EasyNetworkTestSupport
import Foundation
import XCTest

/// Names and file names of a multipart form are the caller's text: any of it is escaped in
/// one linear pass, and a file name's extension is read without `NSString.pathExtension`,
/// which stops the process on Linux for a name with `//` before a non-ASCII character
/// (found by `HardeningFuzzTests`, issue 24).
final class MultipartFormDataTests: ServerTestCase {
    struct FormRequest: BaseAPIRequest {
        var form: MultipartFormData
        var api: String { "/form" }
        var method: NetworkService.Method { .post }
        var query: NetworkService.QueryType { .form }
        var params: [String: Any]? { nil }
        var headers: [String: String]? { nil }
        var multipartBody: MultipartFormData? { form }
    }

    func testFileNamesThatStopNSStringOnLinuxAreReadSafely() throws {
        // Old code: "Swift/UnsafeBufferPointer.swift:1961: Fatal error" in
        // NSString._stringByFixingSlashes (signal 4), from `append`, on the caller's thread.
        server.route("/form") { _ in .json("{}") }
        let child = try ChildProcess.run(self) {
            var form = MultipartFormData()
            form.append(Data("a".utf8), name: "photo", fileName: "albums//été.JPG")
            form.append(Data("b".utf8), name: "raw", fileName: "//\u{FEFF}")
            guard case .success = send(FormRequest(form: form)) else { return "failed" }
            let recorded = server.requests(path: "/form").first
            let parts = parseMultipart(recorded?.body ?? Data(), contentType: recorded?.header("Content-Type")) ?? []
            return parts.map { $0.headers["content-type"] ?? "none" }.joined(separator: ",")
        }
        XCTAssertFalse(child.crashed, child.summary)
        XCTAssertEqual(child.report, "image/jpeg,application/octet-stream")
    }

    func testAQuoteOrCRBeforeACombiningMarkIsEscapedToo() throws {
        // Old code: `replacingOccurrences` compares Characters, and `"` + U+0301 is one, so
        // the quote went into the part's header as it was (`name="a"́; x="y"`).
        server.route("/form") { _ in .json("{}") }
        var form = MultipartFormData()
        form.append("v", name: "a\"\u{301}; x=\"y")
        form.append("w", name: "b\r\u{301}\nInjected: 1")
        guard case .success = send(FormRequest(form: form)) else { return XCTFail("not sent") }
        let recorded = try XCTUnwrap(server.requests(path: "/form").first)
        let body = String(decoding: recorded.body, as: UTF8.self)
        XCTAssertTrue(body.contains("Content-Disposition: form-data; name=\"a%22\u{301}; x=%22y\"\r\n"), body)
        XCTAssertTrue(body.contains("Content-Disposition: form-data; name=\"b%0D\u{301}%0AInjected: 1\"\r\n"), body)
        XCTAssertFalse(body.contains("\r\nInjected"), body)
    }

    /// A part whose name and file name are each 1 MB of hostile text (quotes, CR, LF, `%`,
    /// combining marks, emoji) goes out exactly, escaped, in one linear pass (the time for
    /// 10 KB to 1 MB is `EasyNetworkBenchmarks --encoding`; a quadratic pass took minutes).
    func testAMegabyteNameAndFileNameGoOutEscapedExactly() throws {
        server.route("/form") { _ in .json("{}") }
        let unit = "a\"b\r\nc%d\u{301}é😀/."
        let big = String(repeating: unit, count: 1_048_576 / unit.utf8.count)
        var form = MultipartFormData()
        form.append(Data("x".utf8), name: big, fileName: big + ".png")
        guard case .success = send(FormRequest(form: form), timeout: 60) else { return XCTFail("not sent") }
        let recorded = try XCTUnwrap(server.requests(path: "/form").first)
        let parts = try XCTUnwrap(parseMultipart(recorded.body, contentType: recorded.header("Content-Type")))
        XCTAssertEqual(parts.count, 1)
        let escaped = MultipartFormData.escape(big)
        XCTAssertFalse(escaped.contains("\r") || escaped.contains("\n") || escaped.contains("\""))
        XCTAssertTrue(parts.first?.headers["content-disposition"] == "form-data; name=\"\(escaped)\"; filename=\"\(escaped).png\"", "escaped exactly")
        XCTAssertEqual(parts.first?.headers["content-type"], "image/png")
        XCTAssertEqual(parts.first?.body, Data("x".utf8))
    }

    func testPathExtensionReadsNamesAsNSStringDoes() {
        let names = ["a.txt", ".profile", "a.", "a.b.c", "dir.x/file", "a.tar.gz", "file", "a.txt/", "/", "", "x/.y", "x/y.",
                     "é.JPG", "a.b/c.d", "..", "a..b", "/a/b.c//", "a.é😀", "日本.pdf"]
        for name in names {
            XCTAssertEqual(MultipartFormData.pathExtension(of: name), (name as NSString).pathExtension, name)
        }
        XCTAssertEqual(MultipartFormData.pathExtension(of: "a//é.png"), "png")
        XCTAssertEqual(MultipartFormData.pathExtension(of: String(repeating: "a", count: 1_000_000) + ".gif"), "gif")
    }

    func testEscapeWritesCRLFAndQuotesAsTheHTMLStandardDoes() {
        var generator = SeededGenerator(seed: 7)
        let palette = ["a", "\r", "\n", "\"", "é", "😀", "%", "\r\n", "\u{0}", "\u{301}"]
        for _ in 0..<200 {
            let name = (0..<Int.random(in: 0...12, using: &generator)).map { _ in palette[Int.random(in: 0..<palette.count, using: &generator)] }.joined()
            // Scalar by scalar: a quote or CR followed by a combining mark is one Character,
            // which a Character-wise search (`replacingOccurrences`) passes over.
            let expected = name.unicodeScalars.map { scalar in
                scalar == "\r" ? "%0D" : scalar == "\n" ? "%0A" : scalar == "\"" ? "%22" : String(scalar)
            }.joined()
            XCTAssertEqual(MultipartFormData.escape(name), expected)
        }
        let plain = String(repeating: "name", count: 1_000)
        XCTAssertEqual(MultipartFormData.escape(plain), plain)
    }
}
