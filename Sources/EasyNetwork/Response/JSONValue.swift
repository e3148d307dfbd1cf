import Foundation

/// Any JSON value, decoded through `Decodable`: how the envelope reads its small
/// fields (code, message, trace id) in the same pass that decodes the payload.
enum JSONValue: Decodable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// The value as `JSONSerialization` would give it.
    var object: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .integer(let value): return Int(exactly: value) ?? Double(value)
        case .double(let value): return value
        case .string(let value): return value
        case .array(let values): return values.map(\.object)
        case .object(let values): return values.mapValues(\.object)
        }
    }
}
