@testable import EasyNetworkOrchestration
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What makes two requests identical to the coalescer.
final class RequestCoalescerTests: XCTestCase {
    private func request(_ headers: [(String, String)], method: String = "GET", url: String = "https://h.test/a?b=1") -> URLRequest {
        var request = URLRequest(url: URL(string: url) ?? URL(fileURLWithPath: "/"))
        request.httpMethod = method
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }

    func testTheKeyIgnoresHeaderOrderAndNameCase() {
        let headers = [("Accept", "application/json"), ("X-Trace", "1"), ("Authorization", "Bearer t"), ("A", "2"), ("a-b", "3")]
        let key = RequestCoalescer.key(for: request(headers))
        XCTAssertEqual(RequestCoalescer.key(for: request(Array(headers.reversed()))), key)
        XCTAssertEqual(RequestCoalescer.key(for: request(headers.map { ($0.0.uppercased(), $0.1) })), key)
        XCTAssertEqual(RequestCoalescer.key(for: request(headers.shuffled())), key)
    }

    func testTheKeyTellsMethodURLAndEveryHeaderApart() {
        let headers = [("Accept", "application/json"), ("Authorization", "Bearer t")]
        let keys = [
            RequestCoalescer.key(for: request(headers)),
            RequestCoalescer.key(for: request(headers, method: "HEAD")),
            RequestCoalescer.key(for: request(headers, url: "https://h.test/a?b=2")),
            RequestCoalescer.key(for: request([("Accept", "application/json"), ("Authorization", "Bearer u")])),
            RequestCoalescer.key(for: request([("Accept", "application/json")])),
            RequestCoalescer.key(for: request(headers + [("X-Extra", "")])),
        ]
        XCTAssertEqual(Set(keys).count, keys.count, "\(keys)")
    }
}
