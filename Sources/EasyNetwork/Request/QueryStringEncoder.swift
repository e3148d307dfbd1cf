import Foundation

/// Turns parameters into a query string (`a=1&b=x%20y`), the one encoding used for
/// URL queries and `x-www-form-urlencoded` bodies.
///
/// - Keys are sorted, so the same parameters always make the same string.
/// - Keys and values are percent-encoded per RFC 3986: everything except the
///   unreserved characters `A–Z a–z 0–9 - . _ ~` is encoded as UTF-8 `%XX`, so spaces,
///   `+`, `&`, `=`, `/`, `?`, `#` and any Unicode text round-trip exactly
///   (a space is `%20`, never `+`).
/// - Nesting uses brackets: a dictionary `["user": ["name": "a"]]` becomes
///   `user[name]=a`; an array `["ids": [1, 2]]` becomes `ids[]=1&ids[]=2`; they combine
///   (`items[][id]=1`). On the wire the brackets are percent-encoded (`user%5Bname%5D=a`),
///   as RFC 3986 asks; Rails, PHP, Express and Spring decode them as shown.
///   An empty array or dictionary adds nothing.
/// - `Bool` is `true`/`false`, numbers use their plain description, `NSNull` is an
///   empty value (`key=`), anything else its `String(describing:)`.
public struct QueryStringEncoder: Sendable {
    /// Creates an encoder.
    public init() {}

    /// The encoded query string for `parameters`, without a leading `?`.
    public func encode(_ parameters: [String: Any]) -> String {
        var query = ""
        for pair in pairs(parameters) {
            if !query.isEmpty { query += "&" }
            query += pair.name + "=" + pair.value
        }
        return query
    }

    /// The name/value pairs, not percent-encoded, in the same order and bracket
    /// convention: what multipart fields are made of.
    static func flatten(_ parameters: [String: Any]) -> [(name: String, value: String)] {
        var pairs = QueryStringEncoder().pairs(parameters)
        for index in pairs.indices {
            let (name, value) = pairs[index]
            pairs[index] = (name.removingPercentEncoding ?? name, value.removingPercentEncoding ?? value)
        }
        return pairs
    }

    /// The percent-encoded `name=value` pairs, in order.
    public func pairs(_ parameters: [String: Any]) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        for key in SortedKeys.of(parameters) {
            if let value = parameters[key] {
                append(value, name: Self.escape(key), to: &result)
            }
        }
        return result
    }

    /// `string` percent-encoded so that only RFC 3986 unreserved characters remain.
    public static func escape(_ string: String) -> String {
        PercentEncoding.encode(string, allowed: PercentEncoding.unreserved, keepingEscapes: false)
    }

    private func append(_ value: Any, name: String, to result: inout [(name: String, value: String)]) {
        if let dictionary = value as? [String: Any] {
            for key in SortedKeys.of(dictionary) {
                if let nested = dictionary[key] {
                    append(nested, name: name + "%5B" + Self.escape(key) + "%5D", to: &result)
                }
            }
        } else if let array = value as? [Any], !(value is String) {
            for element in array {
                append(element, name: name + "%5B%5D", to: &result)
            }
        } else {
            result.append((name, Self.escape(Self.text(for: value))))
        }
    }

    /// The textual form of a scalar value.
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
