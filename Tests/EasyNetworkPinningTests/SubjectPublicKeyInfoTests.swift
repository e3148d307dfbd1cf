@testable import EasyNetworkPinning
import Foundation
import XCTest

/// The minimal DER walker that takes a certificate's SubjectPublicKeyInfo: the same pins
/// as OpenSSL for RSA and EC keys (version 3 and version 1 certificates), and for any
/// truncated, mutated or random input a reason, never a crash.
final class SubjectPublicKeyInfoTests: XCTestCase {
    private let names = ["rsa-root", "rsa-intermediate", "rsa-leaf", "ec-root", "ec-intermediate", "ec-leaf", "rsa-v1"]

    func testPinsAreThoseOpenSSLComputes() throws {
        let expected = try Fixtures.pins()
        for name in names {
            let pin = try SubjectPublicKeyInfo.pin(ofCertificate: Fixtures.certificate(name))
            XCTAssertEqual(pin, expected[name], name)
        }
        XCTAssertEqual(SubjectPublicKeyInfo.pin(ofKey: try Fixtures.spareKey()), expected["spare-key"])
    }

    func testTheKeyIsTheWholeSubjectPublicKeyInfoElement() throws {
        let spki = try SubjectPublicKeyInfo.of(certificate: Fixtures.certificate("ec-leaf"))
        XCTAssertEqual(spki.first, 0x30)
        XCTAssertEqual(spki.count, 91, "a P-256 SubjectPublicKeyInfo is 91 bytes")
        let rsa = try SubjectPublicKeyInfo.of(certificate: Fixtures.certificate("rsa-leaf"))
        XCTAssertEqual(rsa.count, 294, "an RSA 2048 SubjectPublicKeyInfo is 294 bytes")
    }

    func testEveryTruncationIsAReasonNotACrash() throws {
        for name in names {
            let der = try Fixtures.certificate(name)
            for length in 0..<der.count {
                do {
                    _ = try SubjectPublicKeyInfo.of(certificate: der.prefix(length))
                    return XCTFail("\(name) cut to \(length) bytes was read")
                } catch {
                    XCTAssertEqual(error.reason, .malformedCertificate)
                    XCTAssertFalse(error.message.isEmpty)
                }
            }
        }
    }

    func testTrailingBytesAreRefused() throws {
        let der = try Fixtures.certificate("rsa-leaf")
        XCTAssertEqual(failure(der + Data([0])), "bytes follow the certificate")
    }

    func testBERAndOversizedLengthsAreRefused() {
        XCTAssertEqual(failure(Data([0x30, 0x80, 0x00, 0x00])), "the certificate has an indefinite length (BER, not DER)")
        XCTAssertEqual(failure(Data([0x30, 0x81, 0x05, 1, 2, 3, 4, 5])), "the certificate has a length that is not minimally encoded")
        XCTAssertEqual(failure(Data([0x30, 0x82, 0x00, 0x85] + [UInt8](repeating: 0, count: 0x85))), "the certificate has a length that is not minimally encoded")
        XCTAssertEqual(failure(Data([0x30, 0x85, 1, 0, 0, 0, 0])), "the certificate has a length of 5 bytes")
        XCTAssertEqual(failure(Data([0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF])), "the certificate claims 2147483647 bytes, 0 are left")
        XCTAssertEqual(failure(Data([0x31, 0x00])), "the certificate has tag 0x31, not 0x30")
        XCTAssertEqual(failure(Data([0x30, 0x00])), "the bytes end before tbsCertificate")
        XCTAssertEqual(failure(Data()), "the bytes end before the certificate")
    }

    func testAChangedTagInsideIsRefused() throws {
        var der = try Fixtures.certificate("ec-leaf")
        // The tbsCertificate's first element is the [0] version: make it a SET.
        let tbsContent = 4 + 4  // 30 82 xx xx, then 30 82 xx xx
        XCTAssertEqual(der[tbsContent], 0xA0)
        der[tbsContent] = 0x31
        XCTAssertEqual(failure(der), "the serial number has tag 0x31, not 0x02")
    }

    func testEverySingleByteChangeIsAnswered() throws {
        for name in ["rsa-leaf", "ec-intermediate", "rsa-v1"] {
            let der = try Fixtures.certificate(name)
            for index in der.indices {
                for value: UInt8 in [0x00, 0x7F, 0x80, 0x81, 0x84, 0xFF, der[index] ^ 0x01] {
                    var mutated = der
                    mutated[index] = value
                    _ = try? SubjectPublicKeyInfo.of(certificate: mutated)  // a result either way, never a trap
                }
            }
        }
    }

    func testRandomAndSplicedBytesAreAnswered() throws {
        var random = SeededGenerator(seed: 22)
        let leaf = try Fixtures.certificate("rsa-leaf")
        for round in 0..<4_000 {
            let length = Int.random(in: 0...300, using: &random)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            if round % 2 == 0, !bytes.isEmpty {
                // A real header in front, so the walker goes deeper than the first element.
                bytes.replaceSubrange(0..<min(bytes.count, 12), with: leaf.prefix(12))
            }
            if let key = try? SubjectPublicKeyInfo.of(certificate: Data(bytes)) {
                XCTAssertEqual(key.first, 0x30, "round \(round)")
            }
        }
    }

    private func failure(_ der: Data, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            _ = try SubjectPublicKeyInfo.of(certificate: der)
            XCTFail("read", file: file, line: line)
            return nil
        } catch {
            XCTAssertEqual(error.reason, .malformedCertificate, file: file, line: line)
            XCTAssertEqual(error.host, "", file: file, line: line)
            return error.message
        }
    }
}
