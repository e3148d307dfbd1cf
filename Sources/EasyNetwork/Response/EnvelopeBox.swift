import Foundation

/// The envelope an ``EnvelopeBox`` applies, bound around one decode (a task-local
/// value, readable from synchronous code on the decoding thread), because
/// `init(from:)` can be given nothing else.
enum EnvelopeBinding {
    @TaskLocal static var current: ResponseEnvelope?
}

/// Decodes an envelope and its `Decodable` payload in one pass of `JSONDecoder`: it
/// reads only the fields the envelope's rule and errors need, then the payload.
struct EnvelopeBox<Payload: Decodable>: Decodable {
    /// The decoded payload; `nil` when the envelope succeeded without one.
    let payload: Payload?
    /// The envelope's fields when it said failure (payload included, as JSON).
    let failureFields: [String: Any]?

    init(from decoder: any Decoder) throws {
        guard let envelope = EnvelopeBinding.current else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no envelope is bound"))
        }
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        let keys = container.allKeys.map(\.stringValue)
        var fields: [String: Any] = [:]
        for field in envelope.fields(among: keys) {
            fields[field.name] = try container.decode(JSONValue.self, forKey: AnyCodingKey(field.key)).object
        }
        guard envelope.isSuccess(fields) else {
            if let name = envelope.payloadKey, let key = envelope.presentKey(name, among: keys) {
                fields[name] = try container.decode(JSONValue.self, forKey: AnyCodingKey(key)).object
            }
            payload = nil
            failureFields = fields
            return
        }
        failureFields = nil
        if let payloadKey = envelope.payloadKey {
            guard let key = envelope.presentKey(payloadKey, among: keys) else {
                payload = nil
                return
            }
            payload = try container.decodeIfPresent(Payload.self, forKey: AnyCodingKey(key))
        } else {
            payload = try Payload(from: decoder)
        }
    }
}
