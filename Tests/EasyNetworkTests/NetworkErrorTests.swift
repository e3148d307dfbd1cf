@testable import EasyNetwork
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The `NSError` codes are public promises: each kind keeps its code, and the table of
/// the *Errors and guarantees* article lists every one of them. The error is small: its optional fields live in one
/// shared, immutable object, so copies are cheap.
final class NetworkErrorTests: XCTestCase {
    /// The codes shipped so far; a code never changes once released.
    private let released: [String: Int] = [
        "invalidRequest": 1, "encoding": 2, "transport": 3, "unacceptableStatus": 4, "decoding": 5,
        "cancelled": 6, "notConfigured": 7, "business": 8, "authentication": 9,
    ]

    func testEveryKindBridgesToItsStableCodeOnce() {
        var seen: [Int: NetworkError.Kind] = [:]
        for kind in NetworkError.Kind.allCases {
            let error = NetworkError(kind: kind, message: "x") as NSError
            XCTAssertEqual(error.domain, "EasyNetwork.NetworkError")
            XCTAssertEqual(error.code, kind.rawValue, "\(kind)")
            XCTAssertGreaterThan(error.code, 0, "\(kind)")
            if let other = seen[error.code] {
                XCTFail("\(kind) and \(other) share code \(error.code)")
            }
            seen[error.code] = kind
            if let code = released["\(kind)"] {
                XCTAssertEqual(kind.rawValue, code, "\(kind) changed its released code")
            }
        }
        for name in released.keys {
            XCTAssertTrue(NetworkError.Kind.allCases.contains { "\(name)" == "\($0)" }, "released kind \(name) is gone")
        }
    }

    /// `rawValue`, `init(rawValue:)` and `allCases` are plain members (no conformances): each
    /// code finds its kind again, codes outside 1...9 find none, and every kind is listed once,
    /// in code order.
    func testKindCodesRoundTripWithoutConformances() {
        XCTAssertEqual(NetworkError.Kind.allCases.map(\.rawValue), Array(1...9))
        for kind in NetworkError.Kind.allCases {
            XCTAssertEqual(NetworkError.Kind(rawValue: kind.rawValue), kind)
        }
        for code in [-1, 0, 10, Int.max] {
            XCTAssertNil(NetworkError.Kind(rawValue: code), "\(code)")
        }
        XCTAssertEqual(NetworkError.Kind(rawValue: 3), .transport)
        XCTAssertEqual("\(NetworkError.Kind.unacceptableStatus)", "unacceptableStatus")
        // `==` and `hash(into:)` are written out: every kind equals only itself and hashes apart.
        let kinds = NetworkError.Kind.allCases
        for (i, a) in kinds.enumerated() {
            for (j, b) in kinds.enumerated() {
                XCTAssertEqual(a == b, i == j, "\(a) == \(b)")
            }
        }
        XCTAssertEqual(Set(kinds).count, 9)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: kinds.map { ($0, $0.rawValue) })[.business], 8)
    }

    /// The `NSError` code table of the *Errors and guarantees* article (it was README's):
    /// rows of `` | `kind` | code | ``.
    func testDocumentedTableListsEveryKindWithItsCode() throws {
        let article = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/EasyNetwork/EasyNetwork.docc/ErrorsAndGuarantees.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        var table: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let row = line.trimmingCharacters(in: .whitespaces)
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard row.hasPrefix("|"), cells.count >= 2, cells[0].hasPrefix("`"), let code = Int(cells[1]) else { continue }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`."))
            XCTAssertNil(table[name], "\(name) listed twice")
            table[name] = code
        }
        let expected = Dictionary(uniqueKeysWithValues: NetworkError.Kind.allCases.map { ("\($0)", $0.rawValue) })
        XCTAssertEqual(table, expected, "the article's NSError code table")
        let highest = NetworkError.Kind.allCases.map(\.rawValue).max() ?? 0
        for claim in ["codes 1–", "codes 1-"] {
            var rest = text[...]
            while let range = rest.range(of: claim) {
                let digits = rest[range.upperBound...].prefix { $0.isNumber }
                XCTAssertEqual(Int(digits), highest, "the article says \"\(claim)\(digits)\"")
                rest = rest[range.upperBound...]
            }
        }
    }

    /// One word (a reference): `Result<_, NetworkError>` copies retain once.
    func testErrorIsOneWordWide() {
        XCTAssertLessThanOrEqual(MemoryLayout<NetworkError>.size, MemoryLayout<Int>.size)
    }

    func testEveryFieldReadsBackAndResponseFillsTheGaps() throws {
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1/a"))
        let other = try XCTUnwrap(URL(string: "http://127.0.0.1/b"))
        let unauthorized = try XCTUnwrap(HTTPURLResponse(url: other, statusCode: 401, httpVersion: nil, headerFields: nil))
        let full = NetworkError(kind: .business, message: "m", statusCode: 200, url: url, response: unauthorized,
                                data: Data([1]), underlyingError: URLError(.timedOut), businessCode: "A0230",
                                traceId: "t-1", payload: Data([2]), isUnauthorized: false)
        XCTAssertEqual(full.kind, .business)
        XCTAssertEqual(full.message, "m")
        XCTAssertEqual(full.statusCode, 200)
        XCTAssertEqual(full.url, url)
        XCTAssertTrue(full.response === unauthorized)
        XCTAssertEqual(full.data, Data([1]))
        XCTAssertEqual(full.urlError?.code, .timedOut)
        XCTAssertTrue(full.isTimeout)
        XCTAssertEqual(full.businessCode, "A0230")
        XCTAssertEqual(full.traceId, "t-1")
        XCTAssertEqual(full.payload, Data([2]))
        XCTAssertFalse(full.isUnauthorized)
        XCTAssertNil(full.attempts)

        let derived = NetworkError(kind: .unacceptableStatus, response: unauthorized)
        XCTAssertEqual(derived.statusCode, 401)
        XCTAssertEqual(derived.url, other)
        XCTAssertTrue(derived.isUnauthorized)
        XCTAssertNil(derived.message)
        XCTAssertNil(derived.data)
        XCTAssertTrue(NetworkError(kind: .business, isUnauthorized: true).isUnauthorized)

        let bare = NetworkError(kind: .cancelled)
        XCTAssertTrue(bare.isCancelled)
        XCTAssertNil(bare.message)
        XCTAssertNil(bare.statusCode)
        XCTAssertNil(bare.url)
        XCTAssertNil(bare.response)
        XCTAssertNil(bare.underlyingError)
        XCTAssertNil(bare.businessCode)
        XCTAssertFalse(bare.isUnauthorized)
        XCTAssertFalse(bare.isTimeout)
    }

    /// Copies share the details but stay values: setting `attempts` on one leaves the other.
    func testCopiesAreIndependentValues() {
        let original = NetworkError(kind: .transport, message: "lost", underlyingError: URLError(.networkConnectionLost))
        var copy = original
        copy = copy.ending(attempts: 3, quoting: false)
        XCTAssertNil(original.attempts)
        XCTAssertEqual(copy.attempts, 3)
        XCTAssertEqual(copy.message, original.message)
        XCTAssertEqual(original.localizedDescription, "The network request failed: \(NetworkError.clause(URLError(.networkConnectionLost).localizedDescription)): lost.")
        XCTAssertTrue(copy.localizedDescription.hasPrefix("The network request failed (after 3 attempts): "), copy.localizedDescription)
        XCTAssertTrue(copy.localizedDescription.hasSuffix(": lost."), copy.localizedDescription)
    }

    /// The texts and `NSError` user info are what callers show and log; pinned here.
    func testDescriptionsAndUserInfo() throws {
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1/a"))
        var status = NetworkError(kind: .unacceptableStatus, message: "teapot", statusCode: 418, url: url)
        status = status.ending(attempts: 2, quoting: false)
        XCTAssertEqual(status.errorDescription, "The server answered with status 418 \(HTTPURLResponse.localizedString(forStatusCode: 418)) (after 2 attempts): teapot.")
        XCTAssertEqual(status.failureReason, "teapot")
        XCTAssertEqual(status.description, "NetworkError.unacceptableStatus: \(status.errorDescription ?? "")")
        let info = (status as NSError).userInfo
        XCTAssertEqual(info[NSLocalizedDescriptionKey] as? String, status.errorDescription)
        XCTAssertEqual(info[NSLocalizedFailureReasonErrorKey] as? String, "teapot")
        XCTAssertEqual(info["statusCode"] as? Int, 418)
        XCTAssertEqual(info["attempts"] as? Int, 2)
        XCTAssertEqual(info[NSURLErrorFailingURLErrorKey] as? URL, url)
        XCTAssertNil(info["businessCode"])
        XCTAssertNil(info[NSUnderlyingErrorKey])

        var business = NetworkError(kind: .business, message: "", businessCode: "8888", traceId: "t")
        business = business.ending(attempts: 1, quoting: false)
        XCTAssertEqual(business.errorDescription, "The server reported a failure (code 8888).")
        let businessInfo = business.errorUserInfo
        XCTAssertEqual(businessInfo["businessCode"] as? String, "8888")
        XCTAssertEqual(businessInfo["traceId"] as? String, "t")
        XCTAssertEqual(businessInfo["attempts"] as? Int, 1)

        var decoding = NetworkError(kind: .decoding, message: "bad")
        decoding = decoding.ending(attempts: 5, quoting: false)
        XCTAssertEqual(decoding.errorDescription, "The response could not be read: bad.", "only transport, status and business mention attempts")
        XCTAssertEqual(NetworkError(kind: .cancelled, message: "ignored").errorDescription, "The request was cancelled.")
        XCTAssertEqual(NetworkError(kind: .unacceptableStatus).errorDescription, "The server answered with status unknown.")
        XCTAssertEqual(Set(NetworkError(kind: .cancelled).errorUserInfo.keys), [NSLocalizedDescriptionKey])
    }
}
