import Foundation

/// Applies a ``ResponseEnvelope`` to a decoded body: success gives the payload,
/// failure a business ``NetworkError``.
struct EnvelopeReader {
    let envelope: ResponseEnvelope
    let response: NetworkResponse

    /// The payload of `body`; `nil` when a successful envelope lacks the payload key
    /// or holds `null` there.
    func payload(of body: Any?) throws -> Any? {
        guard let object = body as? [String: Any] else {
            throw response.decodingError("expected an envelope (a JSON object), got \(Self.shape(of: body)).")
        }
        guard envelope.isSuccess(object) else {
            throw businessError(object)
        }
        guard let key = envelope.payloadKey else {
            return object
        }
        guard let value = object[key], !(value is NSNull) else {
            return nil
        }
        return value
    }

    /// The error for a payload the caller needs but the envelope does not have.
    func missingPayloadError(for type: Any.Type) -> NetworkError {
        response.decodingError("cannot decode \(type): the envelope has no '\(envelope.payloadKey ?? "")'.")
    }

    /// The business error for an envelope whose fields said failure.
    func businessError(_ object: [String: Any]) -> NetworkError {
        let code = envelope.resolvedCodeKey.flatMap { ResponseEnvelope.codeText(object[$0]) }
        var message: String?
        for key in envelope.messageKeys {
            if let text = object[key] as? String, !text.isEmpty {
                message = text
                break
            }
        }
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
            traceId: envelope.traceIdKey.flatMap { ResponseEnvelope.codeText(object[$0]) },
            payload: payload,
            isUnauthorized: code.map { envelope.unauthorizedCodes.contains($0) } ?? false
        )
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
