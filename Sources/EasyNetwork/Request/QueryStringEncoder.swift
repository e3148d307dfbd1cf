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
///   empty value (`key=`), a `Date` its description, anything else its
///   `String(describing:)`.
/// - A request refuses, with an `.encoding` ``NetworkError`` naming the key path, a number
///   or `Date` that is NaN or infinite, a collection other than an array or a dictionary
///   with `String` keys (a `Set`, `Data`), and nesting deeper than 512 levels. This encoder
///   cannot throw: it leaves such values out. It never recurses, and its time is linear in
///   the length of its output.
public struct QueryStringEncoder: Sendable {
    /// Creates an encoder.
    @_alwaysEmitIntoClient
    public init() {}

    /// The encoded query string for `parameters`, without a leading `?`.
    @_alwaysEmitIntoClient
    public func encode(_ parameters: [String: Any]) -> String {
        joinedQuery(pairs(parameters))
    }

    /// The encoded query string, or the `.encoding` error (for `url`) of a value that breaks a rule.
    @inline(never)  // two callers (the URL's query, a form body)
    static func encode(_ parameters: [String: Any], url: URL) throws(NetworkError) -> String {
        var leaves: [(name: String, value: String)] = []
        _ = try ParameterWalker.walk(parameters, json: false, naming: ParameterWalker.escaped, lenient: false, url: url, into: &leaves)
        return joinedQuery(leaves)
    }

    /// The leaves of a lenient walk: every value a query can carry, in order.
    @_alwaysEmitIntoClient  // the pipeline never asks for lenient leaves
    static func leaves(_ parameters: [String: Any], naming: Int) -> [(name: String, value: String)] {
        var leaves: [(name: String, value: String)] = []
        _ = try? ParameterWalker.walk(parameters, json: false, naming: naming, lenient: true, url: nil, into: &leaves)
        return leaves
    }

    /// The name/value pairs, not percent-encoded, in the same order and bracket
    /// convention: what multipart fields are made of (checked when the request was
    /// built). Made as they are, not by decoding the encoded pairs, which cost a decode of
    /// every name and dropped a value's leading byte-order mark.
    @_alwaysEmitIntoClient
    package static func fields(_ parameters: [String: Any]) -> [(name: String, value: String)] {
        leaves(parameters, naming: 2)  // ParameterWalker.plain
    }

    /// The percent-encoded `name=value` pairs, in order.
    @_alwaysEmitIntoClient
    public func pairs(_ parameters: [String: Any]) -> [(name: String, value: String)] {
        Self.leaves(parameters, naming: 1)  // ParameterWalker.escaped
    }

    /// `string` percent-encoded so that only RFC 3986 unreserved characters remain.
    @_alwaysEmitIntoClient  // one call: compiled into each caller, the walker too
    public static func escape(_ string: String) -> String {
        percentEncoded(string, 1, false)  // PercentEncoding.unreserved
    }
}

/// Escaped `name=value` pairs joined by `&` (a free function: a static member compiled
/// a second entry without its unused type argument).
@usableFromInline
func joinedQuery(_ leaves: [(name: String, value: String)]) -> String {
    var query = ""
    for (name, value) in leaves {
        if !query.isEmpty { query += "&" }
        query += name
        query += "="
        query += value
    }
    return query
}
