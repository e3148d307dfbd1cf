#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkResponse {
    /// The host's envelope, applied by `jsonObject()`, `decode(_:decoder:)` and
    /// `validateEnvelope()`; `nil` when the host has none.
    public var envelope: ResponseEnvelope? { payloadReader as? ResponseEnvelope }

    /// Creates a response read through `envelope` (`nil`: the whole body is the
    /// payload); the library makes these, tests may too.
    public init(request: URLRequest, httpResponse: HTTPURLResponse, data: Data, envelope: ResponseEnvelope?, jsonDecoder: JSONDecoder = JSONDecoder()) {
        self.init(request: request, httpResponse: httpResponse, data: data, payloadReader: envelope, jsonDecoder: jsonDecoder)
    }
}
