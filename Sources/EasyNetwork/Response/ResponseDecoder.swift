import Foundation

/// How a response becomes a value of `Output`: the raw body, text, JSON, a `Decodable`
/// type, nothing (`Void`), or a hand-written mapper. Decoding runs off the callback queue.
///
/// Typed requests (``APIRequest``) pick one from their `Response` type; a
/// ``RequestOperation`` can be given one directly.
public struct ResponseDecoder<Output>: Sendable {
    /// The decoding closure itself.
    @usableFromInline
    let closure: @Sendable (NetworkResponse) throws -> Output

    /// A decoder from a closure over the response.
    @_alwaysEmitIntoClient
    public init(_ decode: @escaping @Sendable (NetworkResponse) throws -> Output) {
        closure = decode
    }

    /// Decodes `response`.
    @_alwaysEmitIntoClient
    public func decode(_ response: NetworkResponse) throws -> Output {
        try closure(response)
    }
}

extension ResponseDecoder where Output == Data {
    /// The raw body, untouched by any envelope.
    @_alwaysEmitIntoClient
    public static var data: ResponseDecoder<Data> {
        ResponseDecoder { $0.data }
    }
}

extension ResponseDecoder where Output == String {
    /// The body as text in the `Content-Type` charset (UTF-8 when none or unknown),
    /// untouched by any envelope.
    @_alwaysEmitIntoClient
    public static var string: ResponseDecoder<String> {
        ResponseDecoder { try $0.text() }
    }
}

extension ResponseDecoder where Output == Void {
    /// Nothing: for 204 and empty bodies, or any body that does not matter. An
    /// envelope, if the host has one, is still judged.
    @_alwaysEmitIntoClient
    public static var void: ResponseDecoder<Void> {
        ResponseDecoder { try $0.validateEnvelope() }
    }
}

extension ResponseDecoder where Output == Any? {
    /// The payload as `JSONSerialization` gives it (`nil` when empty).
    @_alwaysEmitIntoClient
    public static var json: ResponseDecoder<Any?> {
        ResponseDecoder { try $0.jsonObject() }
    }
}

extension ResponseDecoder where Output: Decodable {
    /// The payload decoded as `Output` with `decoder`, or the host's decoder when `nil`.
    @_alwaysEmitIntoClient
    public static func decodable(_ decoder: JSONDecoder? = nil) -> ResponseDecoder<Output> {
        .unchecked { try $0.decode(Output.self, decoder: decoder) }
    }

    /// What a typed request whose `Response` is `Output` decodes with: ``data`` for `Data`
    /// and ``string`` for `String` (the raw body, as ``APIRequest``'s defaults have it, not
    /// their `Decodable` forms), ``decodable(_:)`` for any other type.
    @_alwaysEmitIntoClient @usableFromInline
    static var natural: ResponseDecoder<Output> {
        ResponseDecoder<Data>.data as? Self ?? ResponseDecoder<String>.string as? Self ?? .decodable()
    }
}

extension ResponseDecoder {
    /// A decoder from a closure that uses a type's conformance (`Decodable`, a
    /// mapper's `process`), which Swift 6 cannot prove `Sendable`. Emitted into the caller,
    /// as ``decodable(_:)`` and ``mapper(_:)`` are: the core never calls it.
    @_alwaysEmitIntoClient @usableFromInline
    static func unchecked(_ decode: @escaping (NetworkResponse) throws -> Output) -> ResponseDecoder<Output> {
        // unsafe: `decode` keeps no state and holds only Sendable values and a conformance the compiler cannot prove nonisolated; it runs off any actor.
        nonisolated(unsafe) let decode = decode
        return ResponseDecoder { try decode($0) }
    }

    /// The payload mapped by a hand-written ``ResponseMapperProtocol`` type.
    @_alwaysEmitIntoClient
    public static func mapper<Mapper: ResponseMapperProtocol>(_ mapper: Mapper.Type) -> ResponseDecoder<Output> where Mapper.Item == Output {
        .unchecked { try Mapper.process($0.jsonObject()) }
    }

    /// The payload (as JSON) mapped by a closure, e.g. with ``ArrayResponseMapper``.
    @_alwaysEmitIntoClient
    public static func map(_ transform: @escaping @Sendable (Any?) throws -> Output) -> ResponseDecoder<Output> {
        ResponseDecoder { try transform($0.jsonObject()) }
    }
}
