@testable import EasyNetwork
import EasyNetworkTestSupport
import Foundation
import XCTest

/// The hand-written sorts give `keys.sorted()`'s order: an insertion sort below 16 keys, a
/// heap sort from 16 on (issue 24: the insertion sort alone took minutes for the 100,000
/// keys of a caller's dictionary; `ParameterEncodingTests` sends such a request).
final class SortedKeysTests: XCTestCase {
    func testEveryCountSortsLikeTheStandardLibrary() {
        var generator = SeededGenerator(seed: 24)
        let alphabet = Array("aAbB0_ é中😀")
        for count in [0, 1, 2, 3, 15, 16, 17, 31, 64, 100, 1_000] {
            var dictionary: [String: Int] = [:]
            while dictionary.count < count {
                let length = Int.random(in: 0...6, using: &generator)
                let key = String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
                dictionary[key] = dictionary.count
            }
            XCTAssertEqual(SortedKeys.of(dictionary), dictionary.keys.sorted(), "\(count) keys")
        }
    }

    func testAlreadySortedAndReversedKeys() {
        let keys = (0..<500).map { String(format: "k%04d", $0) }
        var dictionary: [String: Int] = [:]
        for key in keys { dictionary[key] = 0 }
        XCTAssertEqual(SortedKeys.of(dictionary), keys)
        var reversed = keys.reversed() as [String]
        heapSortKeys(&reversed)
        XCTAssertEqual(reversed, keys)
    }
}
