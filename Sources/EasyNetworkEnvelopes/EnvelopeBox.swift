#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// The response whose envelope an ``EnvelopeBox`` applies, bound around one decode (a
/// task-local value, readable from synchronous code on the decoding thread), because
/// `init(from:)` can be given nothing else.
enum EnvelopeBinding {
    @TaskLocal static var current: NetworkResponse?

    /// Reads the bound envelope's fields from `container`, the top-level object: only
    /// those its rule and errors need (the message keys, the flag, the code and the trace
    /// id; all but the payload for a custom rule), and the payload too, as JSON, when the
    /// envelope says failure. Not generic: the
    /// ``EnvelopeBox`` of each payload type only decodes the payload.
    ///
    /// - Returns: the payload's key, or `nil` when the payload is the whole object.
    /// - Throws: the envelope's business `NetworkError` when it says failure.
    @_optimize(size)  // once per decode; the decoder's own work dwarfs this
    static func read(_ container: KeyedDecodingContainer<AnyCodingKey>) throws -> String? {
        guard let response = current, let envelope = response.payloadReader as? ResponseEnvelope else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no envelope is bound"))
        }
        // The fields read one by one into one dictionary: no list of names is built. The
        // first field that fails to decode ends the reading, and its error is thrown once,
        // below (one throwing site instead of one for each field).
        var fields = [String: Any]()  // not `[:]`: no dictionary-literal code
        var failure: (any Error)?
        let rule = envelope.success
        if rule.test != nil {
            for key in container.allKeys where key.stringValue != envelope.payloadKey {
                collect(key.stringValue, of: container, into: &fields, failure: &failure)
            }
        } else {
            // A name may repeat (a message key that is also the code's): reading it twice
            // gives the same value.
            for name in envelope.messageKeys {
                collect(name, of: container, into: &fields, failure: &failure)
            }
            // The flag's or the code's, then the code reported (when not the rule's own).
            collect(rule.key, of: container, into: &fields, failure: &failure)
            if let key = envelope.codeKey {
                collect(key, of: container, into: &fields, failure: &failure)
            }
            if let key = envelope.traceIdKey {
                collect(key, of: container, into: &fields, failure: &failure)
            }
        }
        let success = failure == nil && envelope.isSuccess(fields)
        if !success, let name = envelope.payloadKey {
            collect(name, of: container, into: &fields, failure: &failure)
        }
        if let failure { throw failure }
        guard success else { throw envelope.businessError(fields, in: response) }
        return envelope.payloadKey
    }

    /// Adds the value of the field `name` (see ``presentKey(_:in:)``) to `fields`, in the
    /// form `JSONSerialization` gives, when the object has such a field; when it does not
    /// decode, keeps the error in `failure`. Does nothing once `failure` is set.
    /// `updateValue`, not the subscript: nothing is removed, so no removal path.
    @inline(never)
    static func collect(_ name: String, of container: KeyedDecodingContainer<AnyCodingKey>, into fields: inout [String: Any], failure: inout (any Error)?) {
        guard failure == nil, let key = presentKey(name, in: container) else { return }
        do {
            put(try container.decode(JSONValue.self, forKey: key).object, forKey: name, into: &fields)
        } catch {
            failure = error
        }
    }

    /// `fields.updateValue(value, forKey: key)`, compiled once for every value type: the
    /// standard library's own dictionary code runs, not a copy specialized for `Any` here.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    static func put<Value>(_ value: Value, forKey key: String, into fields: inout [String: Value]) {
        fields.updateValue(value, forKey: key)
    }

    /// `name` as a key of `container`: as written, or as a decoder that converts
    /// snake_case names it (`trace_id` → `traceId`).
    @inline(never)
    @_optimize(size)  // a few names per decode; the decoder's own work dwarfs this
    static func presentKey(_ name: String, in container: KeyedDecodingContainer<AnyCodingKey>) -> AnyCodingKey? {
        var key = AnyCodingKey(name)
        if !container.contains(key) {
            key = AnyCodingKey(ResponseEnvelope.camelCased(name))
            guard key.stringValue != name, container.contains(key) else { return nil }
        }
        return key
    }
}

/// Decodes an envelope and its `Decodable` payload in one pass of `JSONDecoder`: it
/// reads only the fields the envelope's rule and errors need, then the payload. A
/// class: a generic struct would bring its own value witnesses for every use.
final class EnvelopeBox<Payload: Decodable>: Decodable {
    /// The decoded payload; `nil` when the envelope succeeded without one.
    let payload: Payload?

    /// A convenience initializer: the payload is decoded first, and a failure on the way
    /// leaves no half-made box to free.
    convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        guard let name = try EnvelopeBinding.read(container) else {
            try self.init(payload: Payload(from: decoder))  // the whole object
            return
        }
        if let key = EnvelopeBinding.presentKey(name, in: container) {
            try self.init(payload: container.decodeIfPresent(Payload.self, forKey: key))
        } else {
            self.init(payload: nil)
        }
    }

    /// A box holding `payload`.
    private init(payload: Payload?) {
        self.payload = payload
    }
}
