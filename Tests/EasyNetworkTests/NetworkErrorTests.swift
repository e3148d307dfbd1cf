import EasyNetwork
import Foundation
import XCTest

/// The `NSError` codes are public promises: each kind keeps its code, and README's
/// table lists every one of them.
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

    /// README's "NSError codes" table: rows of `` | `kind` | code | ``.
    func testReadmeTableListsEveryKindWithItsCode() throws {
        let readme = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
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
        XCTAssertEqual(table, expected, "README's NSError code table")
        let highest = NetworkError.Kind.allCases.map(\.rawValue).max() ?? 0
        for claim in ["codes 1–", "codes 1-"] {
            var rest = text[...]
            while let range = rest.range(of: claim) {
                let digits = rest[range.upperBound...].prefix { $0.isNumber }
                XCTAssertEqual(Int(digits), highest, "README says \"\(claim)\(digits)\"")
                rest = rest[range.upperBound...]
            }
        }
    }
}
