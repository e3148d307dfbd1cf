import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A successful HTTP exchange: the request as sent, the response and its body, with
/// the host's envelope and JSON decoder. Mappers and transforms receive it before
/// anything is decoded, and use its methods to decode.
public struct NetworkResponse: @unchecked Sendable {
    /// The request as it was sent.
    public let request: URLRequest
    /// The HTTP response.
    public let httpResponse: HTTPURLResponse
    /// The body; empty for HEAD, 204 and empty responses.
    public let data: Data
    /// The host's envelope, applied by ``jsonObject()``, ``decode(_:decoder:)`` and
    /// ``validateEnvelope()``; `nil` when the host has none.
    public var envelope: ResponseEnvelope? { heldEnvelope?.envelope }
    /// The envelope in one reference: a response is copied along the exchange, and a
    /// copy then retains one object instead of each of the envelope's fields.
    private let heldEnvelope: HeldEnvelope?
    /// The host's JSON decoder, used by ``decode(_:decoder:)`` when none is given.
    public let jsonDecoder: JSONDecoder

    /// Creates a response; the library makes these, tests may too.
    public init(
        request: URLRequest,
        httpResponse: HTTPURLResponse,
        data: Data,
        envelope: ResponseEnvelope? = nil,
        jsonDecoder: JSONDecoder = JSONDecoder()
    ) {
        self.request = request
        self.httpResponse = httpResponse
        self.data = data
        heldEnvelope = envelope.map(HeldEnvelope.init)
        self.jsonDecoder = jsonDecoder
    }

    private final class HeldEnvelope: Sendable {
        let envelope: ResponseEnvelope

        init(_ envelope: ResponseEnvelope) {
            self.envelope = envelope
        }
    }

    /// The HTTP status code.
    public var statusCode: Int { httpResponse.statusCode }

    /// The value of a response header, name compared case-insensitively.
    public func header(_ name: String) -> String? {
        httpResponse.value(forHTTPHeaderField: name)
    }

    /// The payload as JSON (`[String: Any]`, `[Any]`, or a fragment); `nil` for an
    /// empty body or a missing payload. With an envelope, the envelope is judged
    /// first and only its payload is returned.
    /// - Throws: ``NetworkError`` of kind `business` when the envelope says failure,
    ///   `decoding` with a snippet of the body when the body is not JSON.
    public func jsonObject() throws -> Any? {
        guard let envelope else { return try rawJSONObject() }
        return try envelope.payload(of: rawJSONObject(), in: self)
    }

    /// The whole body as JSON, ignoring any envelope; `nil` when empty.
    /// - Throws: ``NetworkError`` of kind `decoding` with a snippet of the body.
    public func rawJSONObject() throws -> Any? {
        guard !data.isEmpty else { return nil }
        do {
            return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw decodingError("the body is not valid JSON.", underlyingError: error)
        }
    }

    /// The payload decoded as `type` with `decoder` (the host's when `nil`), in one
    /// pass over the body, envelope or not.
    /// - Throws: ``NetworkError``: `business` for an envelope failure, `decoding` that
    ///   names the type, the key path and a snippet of the body.
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder? = nil) throws -> T {
        let decoder = decoder ?? jsonDecoder
        do {
            guard let envelope else {
                return try decoder.decode(T.self, from: data)
            }
            let box = try EnvelopeBinding.$current.withValue(envelope) {
                try decoder.decode(EnvelopeBox<T>.self, from: data)
            }
            if let fields = box.failureFields {
                throw envelope.businessError(fields, in: self)
            }
            if let payload = box.payload {
                return payload
            }
            if let absent = (nil as Any?) as? T {
                return absent
            }
            throw envelope.missingPayloadError(for: T.self, in: self)
        } catch let error as NetworkError {
            throw error
        } catch {
            throw decodingError("cannot decode \(T.self): " + DecodingDiagnostics.reason(for: error), underlyingError: error)
        }
    }

    /// Checks the envelope, if any, and ignores the payload: for requests whose
    /// result is `Void`.
    /// - Throws: ``NetworkError`` of kind `business` or `decoding`.
    public func validateEnvelope() throws {
        if envelope != nil {
            _ = try jsonObject()
        }
    }

    /// The body as text, in the charset the `Content-Type` names (UTF-8 when none).
    /// - Throws: ``NetworkError`` of kind `decoding` when the bytes are not valid in it.
    public func text() throws -> String {
        let encoding = TextCharset.encoding(named: httpResponse.textEncodingName) ?? .utf8
        guard let string = String(data: data, encoding: encoding) else {
            throw decodingError("the body is not valid \(httpResponse.textEncodingName ?? "UTF-8") text.", quotingBody: false)
        }
        return string
    }

    /// A `decoding` error about this response: `message`, then a quote of the body.
    func decodingError(_ message: String, quotingBody: Bool = true, underlyingError: (any Error)? = nil) -> NetworkError {
        NetworkError(
            kind: .decoding,
            message: quotingBody ? message + DecodingDiagnostics.quote(data) : message,
            url: request.url,
            response: httpResponse,
            data: data,
            underlyingError: underlyingError
        )
    }
}
