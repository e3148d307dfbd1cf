#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// Any JSON value, decoded through `Decodable` straight into the form
/// `JSONSerialization` gives: how the envelope reads its small fields (code, message,
/// trace id) in the same pass that decodes the payload. A class: one reference has no
/// value witnesses of its own (a struct holding `Any` would).
final class JSONValue: Decodable {
    /// The value: `NSNull`, `Bool`, `Int`, `Double`, `String`, `[Any]` or `[String: Any]`.
    let object: Any

    @_optimize(size)
    /// `array.append(element)`, compiled once for every element type: the standard
    /// library's own code runs, not a copy specialized for `Any` here.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    private static func append<Element>(_ element: Element, to array: inout [Element]) {
        array.append(element)
    }

    /// `dictionary.mapValues(transform)`, compiled once for every value type (see
    /// ``append(_:to:)``): the standard library's own code runs.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    private static func mapValues<Value>(_ dictionary: [String: Value], _ transform: (Value) -> Any) -> [String: Any] {
        dictionary.mapValues(transform)
    }

    @_optimize(size)  // a few small fields per decode; the decoder's own work dwarfs this
    convenience init(from decoder: any Decoder) throws {
        // A convenience initializer: the value is read first, and a failure on the way
        // leaves no half-made object to free.
        let container = try decoder.singleValueContainer()
        let object: Any
        if container.decodeNil() {
            object = NSNull()
        } else if let bool = try? container.decode(Bool.self) {
            object = bool
        } else if let integer = try? container.decode(Int64.self) {
            object = Int(exactly: integer) ?? Double(integer)
        } else if let double = try? container.decode(Double.self) {
            object = double
        } else if let string = try? container.decode(String.self) {
            object = string
        } else if var elements = try? decoder.unkeyedContainer() {
            var array: [Any] = []
            while !elements.isAtEnd {
                Self.append(try elements.decode(JSONValue.self).object, to: &array)
            }
            object = array
        } else {
            // Decoded as a dictionary, not a keyed container: its keys stay as the body
            // has them whatever the decoder's key strategy. `mapValues` keeps the keys'
            // places: no insertion, no growth.
            object = Self.mapValues(try container.decode([String: JSONValue].self)) { $0.object }  // captures nothing: no context
        }
        self.init(object)
    }

    /// A value holding `object`.
    private init(_ object: Any) {
        self.object = object
    }
}
