import EasyNetwork
import Foundation
import XCTest

/// `NetworkService.Method`, `NetworkService.QueryType` and `ResponseMapperError` are structs
/// of one byte with a static member per choice (not enums): every member stays distinct,
/// keeps its name on the wire and its sentence.
final class NetworkServiceMethodTests: XCTestCase {
    func testEveryMethodKeepsItsNameItsRulesAndItsIdentity() {
        let methods = NetworkService.Method.allCases
        XCTAssertEqual(methods.map(\.rawValue), ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"])
        XCTAssertEqual(methods.map { NetworkService.Method(rawValue: $0.rawValue) }, methods)
        XCTAssertNil(NetworkService.Method(rawValue: "get"), "case-sensitive")
        XCTAssertEqual(methods.filter(\.isIdempotent), [.get, .put, .delete, .head, .options])
        XCTAssertEqual(methods.filter(\.sendsParametersInQuery), [.get, .head])
        for (index, method) in methods.enumerated() {
            XCTAssertEqual(methods.firstIndex(of: method), index, "\(method.rawValue) equals only itself")
        }
    }

    func testQueryTypesAreDistinct() {
        let types: [NetworkService.QueryType] = [.json, .path, .form]
        for (index, type) in types.enumerated() {
            XCTAssertEqual(types.firstIndex(of: type), index)
        }
    }

    func testResponseMapperErrorsAreDistinctAndWorded() {
        XCTAssertNotEqual(ResponseMapperError.invalid, .missingAttribute)
        let thrown: any Error = ResponseMapperError.missingAttribute
        XCTAssertEqual(thrown as? ResponseMapperError, .missingAttribute)
        XCTAssertEqual(ResponseMapperError.invalid.localizedDescription, "The response does not have the expected shape.")
        XCTAssertEqual(ResponseMapperError.missingAttribute.localizedDescription, "The response lacks an attribute the item needs.")
    }
}
