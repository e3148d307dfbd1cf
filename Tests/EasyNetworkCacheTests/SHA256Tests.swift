import EasyNetwork
@testable import EasyNetworkCache
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The digest the cache names credentials with, against the FIPS 180-4 examples and a
/// message of several blocks (checked with Python's hashlib).
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

    func testACacheKeyHoldsNoCredentialInClear() throws {
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1/me"))
        var request = URLRequest(url: url)
        request.setValue("Bearer token-of-alice", forHTTPHeaderField: "Authorization")
        let alice = CacheKey(request: request, token: "token-of-alice")
        XCTAssertFalse(alice.value.contains("token-of-alice"))
        XCTAssertTrue(alice.hasCredential)
        request.setValue("Bearer token-of-bob", forHTTPHeaderField: "authorization")
        XCTAssertNotEqual(CacheKey(request: request, token: "token-of-alice").value, alice.value)
        XCTAssertFalse(CacheKey(request: URLRequest(url: url), token: nil).hasCredential)
    }
}
