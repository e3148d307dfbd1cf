import EasyNetwork
import EasyNetworkUploads
import EasyNetworkTesting
import EasyNetworkTestSupport
import Foundation
import XCTest

/// Every value a caller puts in `params` is checked before Foundation sees it, in every
/// encoding (issue 24): a typed `.encoding` error naming the key path and the value's type,
/// never a trap, a stack overflow or a hang. Inputs that stopped the process on the old
/// code run in a child process (``ChildProcess``), so the suite survives them.
final class ParameterEncodingTests: ServerTestCase {
    enum Encoding: String, CaseIterable {
        case path, form, json, multipart
    }

    /// A request sending `params` in `encoding` (multipart: as text fields before one part).
    struct ParamsRequest: BaseAPIRequest {
        var params: [String: Any]?
        var encoding: Encoding
        var api: String { "/sink" }
        var method: NetworkService.Method { encoding == .path ? .get : .post }
        var query: NetworkService.QueryType { encoding == .path ? .path : encoding == .form || encoding == .multipart ? .form : .json }
        var headers: [String: String]? { nil }
        var multipartBody: MultipartFormData? {
            guard encoding == .multipart else { return nil }
            var form = MultipartFormData()
            form.append("part", name: "last")
            return form
        }
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        server.route("/sink") { _ in .json("{}") }
    }

    /// `encoding|kind|message` of a failure, `encoding|sent` of a success: one line a child
    /// can report.
    func outcome(_ params: [String: Any], _ encoding: Encoding) -> String {
        switch send(ParamsRequest(params: params, encoding: encoding), timeout: 30) {
        case .success: return encoding.rawValue + "|sent"
        case .failure(let error): return encoding.rawValue + "|\(error.kind)|" + (error.message ?? "")
        }
    }

    /// A chain of `depth` values: dictionaries and arrays in turn around `leaf`. Under a key
    /// of the parameters (level 1) the outermost is at level 2 and `leaf` at `depth + 1`.
    static func chain(depth: Int, leaf: Any = 1) -> Any {
        var value = leaf
        for level in 0..<(depth - 1) {
            value = level % 2 == 0 ? ["a": value] as [String: Any] : [value] as [Any]
        }
        return value
    }

    /// Keeps deep values alive until the child exits: releasing them is itself a recursion.
    nonisolated(unsafe) static var kept: [Any] = []

    func testNonFiniteDateInQueryOrFormParamsFailsNamingTheKeyPath() throws {
        // Old code: Foundation's Date.description trapped in the query encoder (signal 4).
        let child = try ChildProcess.run(self) {
            let params: [String: Any] = ["user": ["dates": [Date(timeIntervalSince1970: 0), Date(), Date(timeIntervalSince1970: .nan)]]]
            let lines = [Encoding.path, .form, .multipart].map { outcome(params, $0) }
            // The public encoder cannot throw: it leaves the value out.
            return (lines + ["encoder|" + QueryStringEncoder().encode(["d": Date(timeIntervalSince1970: .infinity), "k": 1])])
                .joined(separator: "\n")
        }
        XCTAssertFalse(child.crashed, child.summary)
        let lines = child.report?.components(separatedBy: "\n") ?? []
        for encoding in ["path", "form", "multipart"] {
            XCTAssertTrue(lines.contains(encoding + "|encoding|the value at 'user.dates[2]' is a Date that is not finite (NaN or infinity)"), "\(lines)")
        }
        XCTAssertTrue(lines.contains("encoder|k=1"), "\(lines)")
        XCTAssertEqual(server.requests.count, 0)
    }

    func testNonFiniteNumbersFailInEveryEncodingNamingTheKeyPathAndType() {
        let values: [(Any, String)] = [(Double.nan, "Double"), (-Double.infinity, "Double"), (Float.infinity, "Float"), (Decimal.nan, "Decimal")]
        for (value, type) in values {
            for encoding in Encoding.allCases {
                let line = outcome(["score": ["history": [1, value]], "name": "ok"], encoding)
                XCTAssertEqual(line, encoding.rawValue + "|encoding|the value at 'score.history[1]' is a " + type + " that is not finite (NaN or infinity)")
            }
        }
        XCTAssertEqual(server.requests.count, 0, "nothing is sent")
    }

    func testDatesAndOtherValuesJSONCannotRepresentNameTheKeyPathAndType() {
        XCTAssertEqual(outcome(["user": ["born": Date(timeIntervalSince1970: 0)]], .json),
                       "json|encoding|the value at 'user.born' is a Date, which JSON cannot represent: send it as a string (ISO 8601) or a number, or use an encodableBody")
        XCTAssertEqual(outcome(["meta": [["id": UUID()]]], .json),
                       "json|encoding|the value at 'meta[0].id' is a UUID, which JSON cannot represent (only strings, finite numbers, booleans, NSNull, arrays and dictionaries with String keys)")
        // In a query a finite date and other values are written as their description, as before.
        XCTAssertEqual(outcome(["at": Date(timeIntervalSince1970: 0), "id": UUID()], .path), "path|sent")
        XCTAssertEqual(server.requests.count, 1)
    }

    func testCollectionsOtherThanArraysAndStringKeyedDictionariesFailInEveryEncoding() {
        let values: [(Any, String)] = [(Set([1, 2]), "Set<Int>"), ([1: "one"] as [Int: String], "Dictionary<Int, String>"), (Data([1, 2]), "Data")]
        for (value, type) in values {
            for encoding in Encoding.allCases {
                let line = outcome(["filter": ["tags": value]], encoding)
                XCTAssertEqual(line, encoding.rawValue + "|encoding|the value at 'filter.tags' is a " + type
                               + ": only arrays and dictionaries with String keys can hold other parameters")
            }
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    func testParamsNestedFarPastTheLimitFailTypedInEveryEncoding() throws {
        // Old code: a stack overflow (signal 11) in JSONSerialization.isValidJSONObject's
        // bridging, in the query encoder's recursion and in String(describing:) of a
        // [Int: Any] chain.
        let child = try ChildProcess.run(self) {
            let deep = Self.chain(depth: 30_000)
            var intKeyed: Any = 1
            for _ in 0..<30_000 { intKeyed = [1: intKeyed] as [Int: Any] }
            Self.kept = [deep, intKeyed]
            var lines = Encoding.allCases.map { outcome(["p": deep], $0) }
            lines.append("intKeyed-" + outcome(["p": ["q": intKeyed]], .path))
            return lines.joined(separator: "\n")
        }
        XCTAssertFalse(child.crashed, child.summary)
        let lines = child.report?.components(separatedBy: "\n") ?? []
        XCTAssertEqual(lines.count, 5, "\(lines)")
        for line in lines.dropLast() {
            XCTAssertTrue(line.contains("|encoding|the value at 'p.a[0].a[0].a[0].a…"), line)
            XCTAssertTrue(line.hasSuffix("' is nested deeper than 512 levels, the most EasyNetwork encodes"), line)
        }
        XCTAssertEqual(lines.last, "intKeyed-path|encoding|the value at 'p.q' is a Dictionary<Int, Any>: only arrays and dictionaries with String keys can hold other parameters")
        XCTAssertEqual(server.requests.count, 0)
    }

    func testParamsAtTheLimitAreSentAndOneLevelDeeperFails() throws {
        // Level 1 is the parameters, so a chain whose leaf is at level 512 starts at level 2.
        for encoding in Encoding.allCases {
            XCTAssertEqual(outcome(["p": Self.chain(depth: 511)], encoding), encoding.rawValue + "|sent")
            let line = outcome(["p": Self.chain(depth: 512)], encoding)
            XCTAssertTrue(line.hasSuffix("' is nested deeper than 512 levels, the most EasyNetwork encodes"), line)
        }
        XCTAssertEqual(server.requests.count, 4)
        let json = try XCTUnwrap(server.requests.first { $0.header("Content-Type") == "application/json" })
        XCTAssertEqual(json.body.filter { $0 == UInt8(ascii: "[") }.count, 255, "the whole value was sent")
    }

    func testDeepJSONParamsAreEncodedOnAQueueWorker() throws {
        // Deeper than LargeStack.inlineDepth: serialized on a thread with a large stack.
        let host = makeHost()
        let operation = RequestOperation(request: ParamsRequest(params: ["p": Self.chain(depth: 511)], encoding: .json), configuration: host, responseDecoder: .data)
        NetworkQueue(maxConcurrentOperationCount: 1).addOperation(operation)
        waitUntilFinished(operation, timeout: 30)
        XCTAssertNotNil(try operation.result?.get())
        XCTAssertEqual(server.requests(path: "/sink").first?.body.filter { $0 == UInt8(ascii: "{") }.count, 256)
    }

    func testParamsWithAHundredThousandKeysAreEncoded() throws {
        // Old code: an insertion sort of the keys, 5 billion string comparisons: the child
        // was still sorting when it was killed.
        let child = try ChildProcess.run(self, timeout: 60) {
            var params: [String: Any] = [:]
            for index in 0..<100_000 { params["key\(index)"] = index }
            return outcome(params, .form)
        }
        XCTAssertFalse(child.timedOut, "no callback in 60 s")
        XCTAssertEqual(child.report, "form|sent", child.output.suffix(2000).description)
    }

    func testMultipartTextFieldsKeepTheirExactText() throws {
        // Old code: fields were percent-encoded, then decoded again, which dropped a
        // leading byte-order mark.
        let params: [String: Any] = ["bom": "\u{FEFF}starts with a BOM", "\u{FEFF}name": "x", "nul": "a\u{0}b", "percent": "%41 %zz %"]
        XCTAssertEqual(outcome(params, .multipart), "multipart|sent")
        let recorded = try XCTUnwrap(server.requests(path: "/sink").first)
        let parts = try XCTUnwrap(parseMultipart(recorded.body, contentType: recorded.header("Content-Type")))
        var fields: [String: String] = [:]
        for part in parts {
            let disposition = part.headers["content-disposition"] ?? ""
            let name = disposition.components(separatedBy: "name=\"").last?.dropLast() ?? ""
            fields[String(name)] = String(decoding: part.body, as: UTF8.self)
        }
        XCTAssertEqual(fields["bom"].map { Array($0.unicodeScalars) }, Array("\u{FEFF}starts with a BOM".unicodeScalars))
        XCTAssertEqual(fields["\u{FEFF}name"], "x")
        XCTAssertEqual(fields["nul"], "a\u{0}b")
        XCTAssertEqual(fields["percent"], "%41 %zz %")
        XCTAssertEqual(fields["last"], "part")
    }

    func testALongNameOrValueIsEncodedExactlyInEveryEncoding() throws {
        // Exact, whatever the size; how long 10 KB to 1 MB take: `EasyNetworkBenchmarks
        // --encoding`. A URL carries a shorter one: curl and servers refuse megabyte URLs.
        let big = String(repeating: "a b\"c\r\nd%e[f]é😀", count: 256 * 1024 / 20)
        let long = String(big.prefix(5_000))
        XCTAssertEqual(outcome([long: "v", "k": long], .path), "path|sent")
        for encoding in [Encoding.form, .json, .multipart] {
            XCTAssertEqual(outcome([big: "v", "k": big], encoding), encoding.rawValue + "|sent")
        }
        let recorded = server.requests(path: "/sink")
        XCTAssertEqual(recorded.count, 4)
        guard recorded.count == 4 else { return }
        let items = recorded[0].queryItems
        XCTAssertTrue(items.first { $0.name == "k" }?.value == long, "the value round-trips")
        XCTAssertTrue(items.first { $0.name == long }?.value == "v", "the name round-trips")
        let form = String(decoding: recorded[1].body, as: UTF8.self)
        XCTAssertTrue(form == QueryStringEncoder.escape(big) + "=v&k=" + QueryStringEncoder.escape(big), "form body")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: recorded[2].body) as? [String: String])
        XCTAssertTrue(json == [big: "v", "k": big], "JSON body")
        let parts = try XCTUnwrap(parseMultipart(recorded[3].body, contentType: recorded[3].header("Content-Type")))
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(parts.first?.body, Data("v".utf8))
        XCTAssertTrue(parts.dropFirst().first?.body == Data(big.utf8), "multipart value")
        let escaped = big.replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A").replacingOccurrences(of: "\"", with: "%22")
        XCTAssertTrue(parts.first?.headers["content-disposition"] == "form-data; name=\"" + escaped + "\"", "multipart name")
    }

    func testAnErrorMessageStaysShortWhateverTheKeys() {
        let key = String(repeating: "k", count: 1_000_000)
        let line = outcome([key: [key: Double.nan]], .json)
        let prefix = String(repeating: "k", count: 40) + "…"
        XCTAssertEqual(line, "json|encoding|the value at '" + prefix + "." + prefix + "' is a Double that is not finite (NaN or infinity)")
    }

    /// A key cut at 40 bytes keeps its whole Unicode scalars (a cut inside one once left the key out).
    func testAnErrorMessageCutsALongKeyBetweenScalars() {
        let key = "a" + String(repeating: "\u{E9}", count: 30)  // 61 bytes: byte 40 is inside a scalar
        let line = outcome([key: Double.nan], .json)
        XCTAssertEqual(line, "json|encoding|the value at 'a" + String(repeating: "\u{E9}", count: 19) + "…' is a Double that is not finite (NaN or infinity)")
    }
}
