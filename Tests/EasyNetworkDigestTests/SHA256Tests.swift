@testable import EasyNetworkDigest
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The digest the cache names credentials with and public-key pins are made of, against the
/// FIPS 180-4 examples and messages of several blocks (checked with Python's hashlib).
final class SHA256Tests: XCTestCase {
    func testKnownDigests() {
        let vectors: [(Data, String)] = [
            (Data(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (Data("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            (
                Data("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8),
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
            (Data((0..<5).flatMap { _ in (0...255).map { UInt8($0) } }), "d414b085826eb06778483ba35564dc849e643359f69ed9747878ba6e54985bed"),
        ]
        for (message, digest) in vectors {
            XCTAssertEqual(SHA256.hex(message), digest, "\(message.count) bytes")
        }
    }

    func testMessagesAroundTheBlockAndPaddingBoundaries() {
        // Lengths where the padding needs a block of its own, or just fits.
        let expected: [Int: String] = [
            55: "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b",
            56: "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27",
            63: "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055",
            64: "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241",
            65: "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e",
            119: "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e",
            120: "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5",
            128: "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6",
        ]
        for (length, digest) in expected {
            let message = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
            XCTAssertEqual(SHA256.hex(message), digest, "\(length) bytes")
            XCTAssertEqual(SHA256.digest(message).count, 32)
        }
    }
}
