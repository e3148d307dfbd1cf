@testable import EasyNetworkOutbox
import Foundation
import XCTest

/// The entry file format: what is written reads back; any torn or changed byte is caught.
final class EntryRecordTests: XCTestCase {
    private func sampleFile() -> [UInt8] {
        EntryRecord.file(
            id: "00000000000000000001-0000abcd", idempotencyKey: "key-1", method: "POST",
            url: URL(string: "https://api.example.com/v1/events?x=1")!,
            headers: ["Content-Type", "application/json", "X-Ünïcode", "✓"],
            body: Data("{\"n\":1}".utf8), createdAt: Date(timeIntervalSince1970: 1_700_000_000.25), requiresAuthentication: false,
            attempts: 3, countedAttempts: 2, notBefore: Date(timeIntervalSince1970: 1_700_000_100),
            statusCode: 503, reason: "busy", responseBody: Data([0, 1, 2]), endedAt: nil
        )
    }

    func testARecordReadsBackAsWritten() throws {
        let bytes = sampleFile()
        let record = try XCTUnwrap(EntryRecord.decoding(bytes))
        XCTAssertEqual(record.id, "00000000000000000001-0000abcd")
        XCTAssertEqual(record.idempotencyKey, "key-1")
        XCTAssertEqual(record.method, "POST")
        XCTAssertEqual(record.url.absoluteString, "https://api.example.com/v1/events?x=1")
        XCTAssertEqual(record.headers, ["Content-Type", "application/json", "X-Ünïcode", "✓"])
        XCTAssertEqual(record.body, Data("{\"n\":1}".utf8))
        XCTAssertEqual(record.createdAt, Date(timeIntervalSince1970: 1_700_000_000.25))
        XCTAssertEqual(record.attempts, 3)
        XCTAssertEqual(record.countedAttempts, 2)
        XCTAssertEqual(record.notBefore, Date(timeIntervalSince1970: 1_700_000_100))
        XCTAssertFalse(record.requiresAuthentication)
        XCTAssertEqual(record.statusCode, 503)
        XCTAssertEqual(record.reason, "busy")
        XCTAssertEqual(record.responseBody, Data([0, 1, 2]))
        XCTAssertNil(record.endedAt)
        let again = record.encoded(
            attempts: record.attempts, countedAttempts: record.countedAttempts, notBefore: record.notBefore, createdAt: nil,
            statusCode: record.statusCode, reason: record.reason, responseBody: record.responseBody, endedAt: record.endedAt
        )
        XCTAssertEqual(again, bytes, "a record read back writes the same file")
    }

    func testEveryTruncationAndEveryChangedByteIsCaught() {
        let bytes = sampleFile()
        for length in 0..<bytes.count {
            XCTAssertNil(EntryRecord.decoding(Array(bytes[0..<length])), "cut to \(length) bytes")
        }
        XCTAssertNil(EntryRecord.decoding(bytes + [0]), "a byte too many")
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x20
            XCTAssertNil(EntryRecord.decoding(changed), "byte \(index) changed")
        }
    }

    func testACountTheFileCannotHoldIsRefusedEvenUnderAGoodChecksum() throws {
        var bytes = sampleFile()
        let record = try XCTUnwrap(EntryRecord.decoding(bytes))
        // The header count follows four strings (id, key, method, URL), each with a 4-byte length.
        let at = EntryRecord.headerSize + [record.id, record.idempotencyKey, record.method, record.url.absoluteString].reduce(0) { $0 + 4 + $1.utf8.count }
        XCTAssertEqual(bytes[at], 2)
        bytes.replaceSubrange(at..<at + 4, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let crc = bytes[EntryRecord.headerSize...].withUnsafeBytes(CRC32.checksum)
        bytes.replaceSubrange(12..<16, with: (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) })
        XCTAssertNil(EntryRecord.decoding(bytes), "4 billion headers in a few hundred bytes")
    }

    func testCRC32() {
        let check = Array("123456789".utf8).withUnsafeBytes(CRC32.checksum)
        XCTAssertEqual(check, 0xCBF4_3926)
        XCTAssertEqual([UInt8]().withUnsafeBytes(CRC32.checksum), 0)
    }
}
