@testable import EasyNetworkPinning
import Foundation
import XCTest

/// A pinned host's entry: two different pins at least (a backup), base64 SHA-256 hashes
/// only, a plain host name; refusals say what is wrong.
final class PinnedHostTests: XCTestCase {
    private let first = Data(repeating: 1, count: 32).base64EncodedString()
    private let second = Data(repeating: 2, count: 32).base64EncodedString()

    private func reason(_ make: () throws -> PinnedHost, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            _ = try make()
            XCTFail("accepted", file: file, line: line)
            return nil
        } catch let error as PublicKeyPinningError {
            XCTAssertEqual(error.reason, .invalidConfiguration, file: file, line: line)
            return error.message
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    func testABackupPinIsRequired() {
        XCTAssertEqual(reason { try PinnedHost("api.example.com", pins: [first]) },
                       "a pinned host needs at least two different pins: the key in use and a backup key")
        XCTAssertNotNil(reason { try PinnedHost("api.example.com", pins: [first, first]) }, "the same pin twice is one pin")
        XCTAssertNotNil(reason { try PinnedHost("api.example.com", pins: []) })
    }

    func testPinsMustBeBase64SHA256Hashes() {
        XCTAssertEqual(reason { try PinnedHost("api.example.com", pins: [first, "not base64!"]) },
                       "'not base64!' is not the base64 of a SHA-256 hash (32 bytes)")
        let sha1 = Data(repeating: 3, count: 20).base64EncodedString()
        XCTAssertNotNil(reason { try PinnedHost("api.example.com", pins: [first, sha1]) }, "a SHA-1 hash is too short")
    }

    func testTheHostIsAPlainName() {
        for host in ["https://api.example.com", "api.example.com:443", "api.example.com/v1", "*.example.com", "", ".example.com", "a..b", "api example.com", "[::1", "a:b", "a_b.example.com", "ü.example.com", "..", "."] {
            XCTAssertNotNil(reason { try PinnedHost(host, pins: [first, second]) }, host)
        }
    }

    func testNamesAreNormalized() throws {
        XCTAssertEqual(try PinnedHost("API.Example.COM.", pins: [first, second]).host, "api.example.com")
        XCTAssertEqual(try PinnedHost("[::1]", pins: [first, second]).host, "::1")
        XCTAssertEqual(try PinnedHost("10.0.0.1", pins: [first, second]).host, "10.0.0.1")
        XCTAssertEqual(try PinnedHost("[FE80::1]", pins: [first, second]).host, "fe80::1")
        XCTAssertEqual(try PinnedHost("a-b.example.com", pins: [first, second]).host, "a-b.example.com")
    }

    func testDefaultsPinOnlyTheHostForeverAndRefuseWhereUnsupported() throws {
        let entry = try PinnedHost("api.example.com", pins: [first, second])
        XCTAssertFalse(entry.includesSubdomains)
        XCTAssertNil(entry.expires)
        XCTAssertFalse(entry.allowsUnpinnedWhereUnsupported)
        XCTAssertEqual(entry.pins, [first, second])
    }
}
