import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A successful HTTP exchange: the request as sent, the response and its body, with
/// the host's JSON decoder (and its envelope, from `EasyNetworkEnvelopes`). Mappers and transforms receive it before
/// anything is decoded, and use its methods to decode.
public struct NetworkResponse: Sendable {
    /// The request as it was sent.
    public var request: URLRequest { storage.request }
    /// The HTTP response.
    public var httpResponse: HTTPURLResponse { storage.httpResponse }
    /// The body; empty for HEAD, 204 and empty responses.
    public var data: Data { storage.data }
    /// The host's envelope (`EasyNetworkEnvelopes`), applied by ``jsonObject()``,
    /// ``decode(_:decoder:)`` and ``validateEnvelope()``; `nil` when the host has none.
    @usableFromInline
    package var payloadReader: (any PayloadReader)? { storage.payloadReader }
    /// The host's JSON decoder, used by ``decode(_:decoder:)`` when none is given.
    public var jsonDecoder: JSONDecoder { storage.jsonDecoder }
    /// Every field in one immutable object: a response is copied along the exchange,
    /// and a copy then retains one reference (no value witnesses of its own).
    private let storage: Storage

    /// Creates a response; the library makes these, tests may too.
    @_alwaysEmitIntoClient  // the library calls the package initializer
    public init(
        request: URLRequest,
        httpResponse: HTTPURLResponse,
        data: Data,
        jsonDecoder: JSONDecoder = JSONDecoder()
    ) {
        self.init(request: request, httpResponse: httpResponse, data: data, payloadReader: nil, jsonDecoder: jsonDecoder)
    }

    /// A response whose payload `payloadReader` reads (`nil`: the whole body).
    @inline(never) @usableFromInline @_optimize(size)
    package init(request: URLRequest, httpResponse: HTTPURLResponse, data: Data, payloadReader: (any PayloadReader)?, jsonDecoder: JSONDecoder) {
        storage = Storage(request: request, httpResponse: httpResponse, data: data, payloadReader: payloadReader, jsonDecoder: jsonDecoder)
    }

    private final class Storage: @unchecked Sendable {
        // unchecked: every field is a `let`; `HTTPURLResponse` and `JSONDecoder` are not
        // marked `Sendable` in every SDK, and nothing here mutates them.
        let request: URLRequest
        let httpResponse: HTTPURLResponse
        let data: Data
        let payloadReader: (any PayloadReader)?
        let jsonDecoder: JSONDecoder

        init(request: URLRequest, httpResponse: HTTPURLResponse, data: Data, payloadReader: (any PayloadReader)?, jsonDecoder: JSONDecoder) {
            self.request = request
            self.httpResponse = httpResponse
            self.data = data
            self.payloadReader = payloadReader
            self.jsonDecoder = jsonDecoder
        }
    }

    /// The HTTP status code.
    @_alwaysEmitIntoClient
    public var statusCode: Int { httpResponse.statusCode }

    /// The value of a response header, name compared case-insensitively.
    @_alwaysEmitIntoClient
    public func header(_ name: String) -> String? {
        httpResponse.value(forHTTPHeaderField: name)
    }

    /// The payload as JSON (`[String: Any]`, `[Any]`, or a fragment); `nil` for an
    /// empty body or a missing payload. With an envelope, the envelope is judged
    /// first and only its payload is returned.
    /// - Throws: ``NetworkError`` of kind `business` when the envelope says failure,
    ///   `decoding` when the body is not JSON.
    // Never inlined: the library's decoders (`.json`, `.void`, `.map`, `.mapper`) share it.
    @inline(never)
    public func jsonObject() throws -> Any? {
        guard let payloadReader else { return try rawJSONObject() }
        return try payloadReader.payload(of: rawJSONObject(), in: self)
    }

    /// The whole body as JSON, ignoring any envelope; `nil` when empty.
    /// - Throws: ``NetworkError`` of kind `decoding` when the body is not JSON.
    @_optimize(size)
    public func rawJSONObject() throws -> Any? {
        guard !data.isEmpty else { return nil }
        do {
            return try JSONSerialization.jsonObject(with: data, options: JSONOptions.readingFragments)
        } catch {
            throw decodingError("the body is not valid JSON.", underlyingError: error)
        }
    }

    /// The payload decoded as `type` with `decoder` (the host's when `nil`), in one
    /// pass over the body, envelope or not.
    /// - Throws: ``NetworkError``: `business` for an envelope failure, `decoding` for a body
    ///   that does not decode, naming the type, the key path and the size of the body
    ///   (never its bytes).
    /// Emitted into the caller (the `.decodable` and typed decoders are): the pipeline never calls it.
    @_alwaysEmitIntoClient
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder? = nil) throws -> T {
        // A thin generic shim: the envelope is judged by its reader, and every error is
        // made, by non-generic code (`decodingFailure`).
        let decoder = decoder ?? jsonDecoder
        var failure: (any Error)?
        do {
            guard let payloadReader else {
                return try decoder.decode(T.self, from: data)
            }
            if let payload = try payloadReader.decodePayload(T.self, decoder: decoder, in: self) ?? (nil as Any?) as? T {
                return payload
            }
        } catch {
            failure = error
        }
        throw decodingFailure(failure, type: T.self)
    }

    /// Why decoding `type` failed: `error` itself when it is a ``NetworkError`` (the
    /// envelope's business error), else a `decoding` error naming the type and the key
    /// path; with no `error`, the envelope's payload is missing.
    @_alwaysEmitIntoClient @inline(never) @usableFromInline
    func decodingFailure(_ error: (any Error)?, type: Any.Type) -> any Error {
        if let error, error is NetworkError {
            return error
        }
        let reason = error.map(DecodingDiagnostics.decodingReason) ?? "the envelope has no '" + (payloadReader?.payloadKey ?? "") + "'."
        return decodingError("cannot decode " + DecodingDiagnostics.name(of: type) + ": " + reason, underlyingError: error)
    }

    /// Checks the envelope, if any, and ignores the payload: for requests whose
    /// result is `Void`.
    /// - Throws: ``NetworkError`` of kind `business` or `decoding`.
    @_alwaysEmitIntoClient
    public func validateEnvelope() throws {
        if payloadReader != nil {
            _ = try jsonObject()
        }
    }

    /// The body as text, in the charset the `Content-Type` names (UTF-8 when none or unknown).
    /// - Throws: ``NetworkError`` of kind `decoding` when the bytes are not valid in it.
    @_alwaysEmitIntoClient
    public func text() throws -> String {
        let charset = TextCharset.charset(named: httpResponse.textEncodingName)
        guard let string = String(data: data, encoding: charset?.encoding ?? .utf8) else {
            // The charset by the library's own name for it: no header text goes into an error.
            throw decodingError("the body is not valid " + (charset?.name ?? "UTF-8") + " text.")
        }
        return string
    }

    /// A `decoding` error about this response: `message`, then the size of the body.
    /// Never a byte of the body: its size only (`. Body: 57 bytes (not quoted)`), nothing
    /// for an empty body.
    @usableFromInline @_optimize(size)
    package func decodingError(_ message: String, underlyingError: (any Error)? = nil) -> NetworkError {
        let count = data.count
        let text = count == 0 ? message : "\(NetworkError.sentence(message)) Body: \(count) byte\(count == 1 ? "" : "s") (not quoted)"
        return NetworkError(kind: .decoding, message: text, url: request.url, response: httpResponse, data: data, underlyingError: underlyingError)
    }
}
