import Foundation

/// Applies a ``ResponseEnvelope`` to a decoded body: success gives the payload,
/// failure a business ``NetworkError``.
struct EnvelopeReader {
    let envelope: ResponseEnvelope
    let response: NetworkResponse

    /// The payload of `body`, `.missing` when a successful envelope lacks the payload key.
    enum Payload {
        case value(Any)
        case missing
    }

    func payload(of body: Any?) throws -> Payload {
        guard let object = body as? [String: Any] else {
            throw NetworkError(
                kind: .decoding,
                message: "expected an envelope (a JSON object), got \(Self.shape(of: body))." + snippet,
                url: response.request.url, response: response.httpResponse, data: response.data
            )
        }
        guard envelope.isSuccess(object) else {
            throw businessError(object)
        }
        guard let key = envelope.payloadKey else {
            return .value(object)
        }
        guard let value = object[key], !(value is NSNull) else {
            return .missing
        }
        return .value(value)
    }

    /// The error for a payload the caller needs but the envelope does not have.
    func missingPayloadError(for type: Any.Type) -> NetworkError {
        NetworkError(
            kind: .decoding,
            message: "cannot decode \(type): the envelope has no '\(envelope.payloadKey ?? "")'." + snippet,
            url: response.request.url, response: response.httpResponse, data: response.data
        )
    }

    /// The business error for an envelope whose fields said failure.
    func businessError(_ object: [String: Any]) -> NetworkError {
        let code = envelope.resolvedCodeKey.flatMap { ResponseEnvelope.codeText(object[$0]) }
        let message = envelope.messageKeys.lazy.compactMap { object[$0] as? String }.first { !$0.isEmpty }
        let traceId = envelope.traceIdKey.flatMap { object[$0] }.flatMap { ResponseEnvelope.codeText($0) }
        var payload: Data?
        if let key = envelope.payloadKey, let value = object[key], !(value is NSNull) {
            payload = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
        }
        return NetworkError(
            kind: .business,
            message: message,
            url: response.request.url,
            response: response.httpResponse,
            data: response.data,
            businessCode: code,
            traceId: traceId,
            payload: payload,
            isUnauthorized: code.map(envelope.unauthorizedCodes.contains) ?? false
        )
    }

    private var snippet: String {
        DecodingDiagnostics.snippet(of: response.data).map { " Body: \($0)" } ?? ""
    }

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
