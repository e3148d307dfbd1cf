import EasyNetwork
@testable import EasyNetworkCache
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// What a stored response is found by: credentials only as digests.
final class CacheKeyTests: XCTestCase {
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

    /// A credential header is found whatever the case of its name, however it was set.
    func testACredentialHeaderCountsWhateverTheCaseOfItsName() throws {
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1/me"))
        let anonymous = CacheKey(request: URLRequest(url: url), token: nil)
        var keys: Set<String> = [anonymous.value]
        for (name, value) in [("COOKIE", "session=alice"), ("cookie", "session=bob"), ("Proxy-AUTHORIZATION", "Basic eA=="), ("authorization", "Bearer carol")] {
            var request = URLRequest(url: url)
            request.allHTTPHeaderFields = [name: value, "Accept": "application/json"]
            let key = CacheKey(request: request, token: nil)
            XCTAssertTrue(key.hasCredential, name)
            XCTAssertFalse(key.value.contains(value), name)
            XCTAssertTrue(keys.insert(key.value).inserted, "\(name): a user of its own")
        }
    }
}
