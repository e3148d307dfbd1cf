@testable import EasyNetwork
import Foundation
import XCTest

/// The host's memo of recently built URLs: exact keys only, the last `capacity` kept.
final class URLMemoTests: XCTestCase {
    private static func url(_ index: Int) -> URL {
        URL(string: "https://example.com/items/\(index)") ?? URL(fileURLWithPath: "/")
    }

    func testRemembersByExactKeyAndKeepsTheLatestEntries() {
        let memo = URLMemo()
        XCTAssertNil(memo.url(for: "5:/item"))
        let count = URLMemo.capacity + 3
        for index in 0..<count {
            memo.remember(Self.url(index), for: "key-\(index)")
        }
        // The three oldest were replaced; every later one is found under its own key.
        for index in 0..<3 {
            XCTAssertNil(memo.url(for: "key-\(index)"))
        }
        for index in 3..<count {
            XCTAssertEqual(memo.url(for: "key-\(index)"), Self.url(index))
        }
        XCTAssertNil(memo.url(for: "key-\(count)"))
        XCTAssertNil(memo.url(for: "key-1"))
    }

    func testConcurrentUseFindsOnlyWhatWasRememberedForTheKey() {
        let memo = URLMemo()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<500 {
                let index = (thread * 500 + round) % 40
                if let found = memo.url(for: "key-\(index)") {
                    XCTAssertEqual(found, Self.url(index))
                } else {
                    memo.remember(Self.url(index), for: "key-\(index)")
                }
            }
        }
    }

    func testABuiltURLIsServedFromTheMemoTheSecondTime() throws {
        let memo = URLMemo()
        let base = try XCTUnwrap(URL(string: "https://api.example.com/v1"))
        let first = try URLRequestBuilder.url(base: base, api: "/users", query: ["page": 2], memo: memo)
        XCTAssertEqual(first.absoluteString, "https://api.example.com/v1/users?page=2")
        let again = try URLRequestBuilder.url(base: base, api: "/users", query: ["page": 2], memo: memo)
        XCTAssertEqual(again, first)
        let other = try URLRequestBuilder.url(base: base, api: "/users", query: ["page": 3], memo: memo)
        XCTAssertEqual(other.absoluteString, "https://api.example.com/v1/users?page=3")
    }
}
