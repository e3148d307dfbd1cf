#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// Applying an envelope to a decoded body: success gives the payload, failure a
/// business `NetworkError`. `response` is the exchange the body came from.
extension ResponseEnvelope: PayloadReader {
    /// The payload of `body`; `nil` when a successful envelope lacks the payload key
    /// or holds `null` there.
    @usableFromInline  // a requirement of PayloadReader, which the inlined NetworkResponse.decode calls
    @_optimize(size)
    package func payload(of body: Any?, in response: NetworkResponse) throws -> Any? {
        guard let object = body as? [String: Any] else {
            throw response.decodingError("expected an envelope (a JSON object), got " + Self.shape(of: body) + ".")
        }
        guard isSuccess(object) else {
            throw businessError(object, in: response)
        }
        guard let payloadKey else {
            return object
        }
        guard let value = Self.value(of: payloadKey, in: object), !(value is NSNull) else {
            return nil
        }
        return value
    }

    /// The payload of `response` decoded as `type` in one pass of `decoder`
    /// (``EnvelopeBox``); `nil` when a successful envelope has none.
    @usableFromInline
    package func decodePayload<T: Decodable>(_ type: T.Type, decoder: JSONDecoder, in response: NetworkResponse) throws -> T? {
        try EnvelopeBinding.$current.withValue(response) {
            try decoder.decode(EnvelopeBox<T>.self, from: response.data)
        }.payload
    }

    /// The business error for an envelope whose fields said failure.
    @_optimize(size)
    func businessError(_ object: [String: Any], in response: NetworkResponse) -> NetworkError {
        // The code's key: `codeKey`, else a code rule's own.
        let codeKey = self.codeKey ?? (success.kind == 1 ? success.key : nil)
        let code = codeKey.flatMap { Self.codeText(Self.value(of: $0, in: object)) }
        var message: String?
        for key in messageKeys {
            if let text = Self.value(of: key, in: object) as? String, !text.isEmpty {
                message = text
                break
            }
        }
        var payload: Data?
        if let payloadKey, let value = Self.value(of: payloadKey, in: object), !(value is NSNull) {
            payload = try? JSONSerialization.data(withJSONObject: value, options: JSONOptions.fragmentsSortedKeys)
        }
        // The message and trace id are the server's text: the error's sentences count them (see NetworkError.message).
        let traceId = traceIdKey.flatMap { Self.codeText(Self.value(of: $0, in: object)) }
        let error = NetworkError(
            kind: .business, message: message, url: response.request.url, response: response.httpResponse, data: response.data,
            businessCode: code, traceId: traceId, payload: payload, isUnauthorized: code.map { Self.contains($0, in: unauthorizedCodes) } ?? false
        )
        return message == nil && traceId == nil ? error : error.withServerText(quoted: false)
    }

    /// How a body that is not an envelope looks, for the error.
    @inline(__always)  // one caller
    static func shape(of value: Any?) -> String {
        switch value {
        case nil: return "an empty body"
        case is [Any]: return "an array"
        case is String: return "a string"
        case is NSNull: return "null"
        default: return "a scalar"
        }
    }
}
