import Foundation

/// What a log must never show: header values and parameter values by name, replaced
/// by `<redacted>` in headers, URL queries, form bodies and JSON bodies at any depth
/// (objects inside arrays too).
///
/// Names compare case-insensitively however they are added
/// (`redaction.headers.insert("X-Client-Secret")` hides `x-client-secret`), and
/// parameter names also ignore `_` and `-` (`client_secret` hides `clientSecret`).
/// A form or query field hides when any part of its name does (`user[password]`).
public struct LogRedaction: Sendable {
    /// The two sets, in one immutable object: a redaction is one reference (the runtime's
    /// shared value witnesses, none of its own); a change makes a new one.
    private final class Names: Sendable {
        let headers: Set<String>
        let parameters: Set<String>

        init(headers: Set<String>, parameters: Set<String>) {
            self.headers = headers
            self.parameters = parameters
        }
    }

    private var names: Names

    /// Header names whose values are hidden, compared ignoring case.
    @_alwaysEmitIntoClient  // no getter, setter or modify coroutine in the module: two functions serve both sets
    public var headers: Set<String> {
        get { nameSet(parameter: false) }
        set { setNameSet(newValue, parameter: false) }
    }
    /// Parameter names whose values are hidden (JSON keys, form and query fields),
    /// compared ignoring case, `_` and `-`.
    @_alwaysEmitIntoClient
    public var parameters: Set<String> {
        get { nameSet(parameter: true) }
        set { setNameSet(newValue, parameter: true) }
    }

    /// The parameter names, or the header names.
    @usableFromInline
    func nameSet(parameter: Bool) -> Set<String> {
        parameter ? names.parameters : names.headers
    }

    /// Replaces the parameter names, or the header names, with `set` (a new object: a
    /// copy of the redaction keeps the old ones).
    @usableFromInline
    mutating func setNameSet(_ set: Set<String>, parameter: Bool) {
        names = parameter ? Names(headers: names.headers, parameters: set) : Names(headers: set, parameters: names.parameters)
    }

    /// A redaction; the defaults hide `Authorization`, `Proxy-Authorization`, `Cookie`,
    /// `Set-Cookie`, `X-API-Key`, and parameters named like passwords, tokens and secrets.
    public init(
        headers: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"],
        parameters: Set<String> = [
            "password", "passwd", "token", "access_token", "refresh_token", "id_token", "session_token",
            "auth_token", "secret", "client_secret", "api_key", "private_key",
        ]
    ) {
        names = Names(headers: headers, parameters: parameters)
    }

    /// The default redaction.
    @_alwaysEmitIntoClient  // made where read: no global, one-time initializer, addressor or getter in the module
    public static var `default`: LogRedaction { LogRedaction() }

    /// The text that replaces a hidden value.
    @_alwaysEmitIntoClient  // a constant: no global, addressor or getter in the module
    public static var mask: String { "<redacted>" }

    /// Whether the header `name` is hidden (case-insensitive).
    @_alwaysEmitIntoClient  // both questions answered by one function
    public func hidesHeader(_ name: String) -> Bool {
        hides(name, parameter: false)
    }

    /// Whether the parameter `name` is hidden (case-insensitive, ignoring `_` and `-`).
    @_alwaysEmitIntoClient
    public func hidesParameter(_ name: String) -> Bool {
        hides(name, parameter: true)
    }

    /// Whether the parameter, or the header, `name` is hidden.
    @usableFromInline
    func hides(_ name: String, parameter: Bool) -> Bool {
        Self.holds(Self.keys(nameSet(parameter: parameter), parameter: parameter), name, parameter: parameter)
    }

    /// `name` as compared: lowercased, and for a parameter without `_` and `-`.
    @inline(never)  // one copy for every caller
    private static func key(_ name: String, parameter: Bool) -> String {
        let lowered = name.lowercased()
        return parameter ? replacing("-", in: replacing("_", in: lowered, with: ""), with: "") : lowered
    }

    /// `text` with every `target` replaced: Foundation's generic `replacingOccurrences`
    /// called from one place (each call site passes its defaults and type arguments).
    @inline(never)
    static func replacing(_ target: String, in text: String, with replacement: String) -> String {
        text.replacingOccurrences(of: target, with: replacement)
    }

    /// Puts `text` into `array` at `index`, inserted or in place of the string there:
    /// compiled without optimization, so the standard library's own insertion, growth and
    /// copy-on-write are called, not copies specialized for strings (shared with
    /// ``HeaderLines``).
    @_optimize(none)
    static func put(_ text: String, at index: Int, into array: inout [String], inserting: Bool) {
        if inserting {
            array.insert(text, at: index)
        } else {
            array[index] = text
        }
    }

    /// Whether `keys` (see ``keys(_:parameter:)``) hold `name` as compared.
    @inline(never)
    private static func holds(_ keys: [String], _ name: String, parameter: Bool) -> Bool {
        keys.contains(key(name, parameter: parameter))
    }

    /// `names` as compared (see ``key(_:parameter:)``), made once per text redacted:
    /// the sets keep what the caller inserted.
    @_optimize(none)  // the standard library's set iteration and append, not copies specialized here
    private static func keys(_ names: Set<String>, parameter: Bool) -> [String] {
        var keys: [String] = []
        for name in names {
            keys.append(key(name, parameter: parameter))
        }
        return keys
    }

    /// `url` as text with hidden query values masked (for display, not a URL).
    public func redact(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }  // only for a request whose URL could not be made
        let string = url.absoluteString
        guard let mark = string.range(of: "?")?.upperBound else { return string }
        let rest = String(string[mark...])  // a String: one `range(of:)` for both searches
        let hash = rest.range(of: "#")?.lowerBound ?? rest.endIndex
        var result = String(string[..<mark])
        result += redactForm(String(rest[..<hash]))
        result += String(rest[hash...])
        return result
    }

    /// A body as text with hidden values masked: JSON pretty-printed, forms by field,
    /// other text as is, binary as a byte count; cut to `limit` characters.
    public func describeBody(_ data: Data?, contentType: String?, limit: Int) -> String? {
        let size = data?.count ?? 0  // `Data.count` once: each use inlines its representations
        guard let data, size > 0 else { return nil }
        let count = String(size)
        guard let text = redactBody(data, contentType: contentType, pretty: true) else {
            return "(" + count + " bytes of binary data)"
        }
        // Longer than `limit` characters: cut where the `limit`-th one ends (one walk).
        guard let end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex), end < text.endIndex else {
            return text
        }
        return String(text[..<end]) + "… (" + count + " bytes in all)"
    }

    /// A body as text with hidden values masked: JSON written again (sorted keys,
    /// pretty-printed with `pretty`), a form by field, other UTF-8 text as is; `nil` for
    /// bytes that are neither JSON nor UTF-8 text. Shared with ``CURLCommand``.
    func redactBody(_ data: Data, contentType: String?, pretty: Bool) -> String? {
        let options: JSONSerialization.WritingOptions = pretty ? [.prettyPrinted, .sortedKeys, .fragmentsAllowed] : [.sortedKeys, .fragmentsAllowed]
        if let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
           let written = try? JSONSerialization.data(withJSONObject: redactJSON(json, Self.keys(headers, parameter: false), Self.keys(parameters, parameter: true)), options: options) {
            return String(data: written, encoding: .utf8)  // JSONSerialization writes UTF-8
        }
        guard let string = String(data: data, encoding: .utf8) else { return nil }
        return contentType?.lowercased().contains("x-www-form-urlencoded") == true ? redactForm(string) : string
    }

    /// A JSON value with hidden keys masked, at any depth (parameter names and header
    /// names both count, for bodies that carry headers).
    ///
    /// Compiled without optimization: it calls the standard library's own dictionary and
    /// array code, not copies specialized for `[String: Any]` and `[Any]` and compiled
    /// here (a log's body, written at `debug` only).
    @_optimize(none)
    private func redactJSON(_ value: Any, _ headerKeys: [String], _ parameterKeys: [String]) -> Any {
        if var dictionary = value as? [String: Any] {
            // Each value replaced at its index: the keys stay, so the table is never
            // searched nor resized (no insertion compiled here).
            var index = dictionary.startIndex
            while index != dictionary.endIndex {
                let key = dictionary.keys[index]
                let hidden = Self.holds(parameterKeys, key, parameter: true) || Self.holds(headerKeys, key, parameter: false)
                // ``mask``'s text: its getter would be compiled for this unoptimized caller.
                dictionary.values[index] = hidden ? "<redacted>" : redactJSON(dictionary.values[index], headerKeys, parameterKeys)
                dictionary.formIndex(after: &index)
            }
            return dictionary
        }
        if var array = value as? [Any] {
            var index = 0  // counted, not a range: no `Range` conformances compiled for it
            while index < array.count {
                array[index] = redactJSON(array[index], headerKeys, parameterKeys)
                index += 1
            }
            return array
        }
        return value
    }

    /// A form body with hidden fields masked.
    func redactForm(_ body: String) -> String {
        let keys = Self.keys(parameters, parameter: true)
        var pairs = body.components(separatedBy: "&")
        for index in pairs.indices {
            let name = pairs[index].components(separatedBy: "=")[0]  // never empty: one part at least
            let decoded = Self.replacing("+", in: name, with: " ").removingPercentEncoding ?? name
            // `user[password]`, `items[0][token]`: any part of the name counts.
            for part in Self.replacing("]", in: decoded, with: "[").components(separatedBy: "[") where !part.isEmpty && Self.holds(keys, part, parameter: true) {
                Self.put(name + "=" + Self.mask, at: index, into: &pairs, inserting: false)
            }
        }
        return pairs.joined(separator: "&")
    }
}
