import Foundation

/// What one value of a request's `params` is, for the encoders.
///
/// Decided without a cast that could convert a whole collection: on Linux, `value is NSNull`
/// or `value as? NSNumber` turns an array or a dictionary, with everything nested inside it,
/// into its Objective-C form first, a recursion as deep as the value (a crash for a deep one,
/// and quadratic time for a moderately deep one). So the collections are told apart first,
/// by casts to Swift collection types, and only what is left is asked about classes.
enum ParameterKind {
    /// A dictionary with string keys (`[String: Any]`, an `NSDictionary` of strings): nests.
    case dictionary([String: Any])
    /// An array (`[Any]`, any Swift array, an `NSArray`): nests.
    case array([Any])
    /// A string, a `Bool` or a finite number: JSON writes it, a query writes its text.
    case scalar
    /// `NSNull` or a `nil` in an `Any`: JSON `null`; in a query `key=` and `key=nil` (as before).
    case null
    /// A `Date`: no JSON type; a query writes its description when it is finite.
    case date(finite: Bool)
    /// A `Double`, `Float`, `Decimal`, `CGFloat` or `NSNumber` that is NaN or infinite.
    case nonFinite
    /// Any other collection (a `Set`, a dictionary with other keys, `Data`): never nests.
    case collection
    /// Anything else (a `URL`, a `UUID`, an enum): a query writes its description, JSON refuses it.
    case other

    init(_ value: Any) {
        if value is String {
            self = .scalar
        } else if let dictionary = value as? [String: Any] {
            self = .dictionary(dictionary)
        } else if let array = value as? [Any] {
            self = .array(array)
        } else if case Optional<Any>.none = value {
            self = .null
        } else if value is Substring {
            // Text, although it is a collection too.
            self = .scalar
        } else if value is any Sequence {
            self = .collection
        } else if let date = value as? Date {
            self = .date(finite: date.timeIntervalSinceReferenceDate.isFinite)
        } else if value is NSNull {
            self = .null
        } else if let number = value as? NSNumber {
            // Every Swift integer, `Bool`, `Double`, `Float` and `Decimal` bridges here.
            self = number.doubleValue.isFinite ? .scalar : .nonFinite
        } else if let number = value as? CGFloat {
            // Not an `NSNumber` on Linux, nor valid JSON there.
            self = number.isFinite ? .other : .nonFinite
        } else {
            self = .other
        }
    }

    /// The textual form of a value a query writes (a `.scalar`, `.null`, finite `.date` or `.other`).
    static func text(for value: Any) -> String {
        switch value {
        case let string as String:
            return string
        case is NSNull:
            return ""
        case let bool as Bool where type(of: value) == Bool.self:
            return bool ? "true" : "false"
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            if type == "c" || type == "B" {
                return number.boolValue ? "true" : "false"
            }
            return number.stringValue
        default:
            return String(describing: value)
        }
    }
}
