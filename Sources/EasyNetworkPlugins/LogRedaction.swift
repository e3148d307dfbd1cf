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
    /// Header names whose values are hidden, kept lowercased.
    public var headers: Set<String> {
        didSet { headers = Self.normalized(headers, keys: false) }
    }
    /// Parameter names whose values are hidden (JSON keys, form and query fields), kept lowercased.
    public var parameters: Set<String> {
        didSet {
            parameters = Self.normalized(parameters, keys: false)
            parameterKeys = Self.normalized(parameters, keys: true)
        }
    }
    /// `parameters` as compared: lowercased, without `_` and `-`.
    private var parameterKeys: Set<String>

    /// A redaction; the defaults hide `Authorization`, `Proxy-Authorization`, `Cookie`,
    /// `Set-Cookie`, `X-API-Key`, and parameters named like passwords, tokens and secrets.
    public init(
        headers: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"],
        parameters: Set<String> = [
            "password", "passwd", "token", "access_token", "refresh_token", "id_token", "session_token",
            "auth_token", "secret", "client_secret", "api_key", "private_key",
        ]
    ) {
        self.headers = Self.normalized(headers, keys: false)
        self.parameters = Self.normalized(parameters, keys: false)
        parameterKeys = Self.normalized(parameters, keys: true)
    }

    /// The default redaction.
    public static let `default` = LogRedaction()

    /// The text that replaces a hidden value.
    public static let mask = "<redacted>"

    /// Whether the header `name` is hidden (case-insensitive).
    public func hidesHeader(_ name: String) -> Bool {
        headers.contains(name.lowercased())
    }

    /// Whether the parameter `name` is hidden (case-insensitive, ignoring `_` and `-`).
    public func hidesParameter(_ name: String) -> Bool {
        parameterKeys.contains(Self.parameterKey(name))
    }

    private static func parameterKey(_ name: String) -> String {
        name.lowercased().replacingOccurrences(of: "_", with: "").replacingOccurrences(of: "-", with: "")
    }

    /// `names` lowercased, or with `keys` as compared (``parameterKey(_:)``). One loop
    /// for the initializer and both setters (a `map` each compiled its own copy).
    private static func normalized(_ names: Set<String>, keys: Bool) -> Set<String> {
        var result = Set<String>(minimumCapacity: names.count)
        for name in names {
            result.insert(keys ? parameterKey(name) : name.lowercased())
        }
        return result
    }

    /// `url` as text with hidden query values masked (for display, not a URL).
    public func redact(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }  // only for a request whose URL could not be made
        let string = url.absoluteString
        guard let mark = string.firstIndex(of: "?") else { return string }
        var query = String(string[string.index(after: mark)...])
        var fragment = ""
        if let hash = query.firstIndex(of: "#") {
            fragment = String(query[hash...])
            query = String(query[..<hash])
        }
        return String(string[..<mark]) + "?" + redactForm(query) + fragment
    }

    /// A body as text with hidden values masked: JSON pretty-printed, forms by field,
    /// other text as is, binary as a byte count; cut to `limit` characters.
    public func describeBody(_ data: Data?, contentType: String?, limit: Int) -> String? {
        guard let data, !data.isEmpty else { return nil }
        guard var text = redactBody(data, contentType: contentType, pretty: true) else {
            return "(\(data.count) bytes of binary data)"
        }
        if text.count > limit {
            text = String(text.prefix(limit)) + "… (\(data.count) bytes in all)"
        }
        return text
    }

    /// A body as text with hidden values masked: JSON written again (sorted keys,
    /// pretty-printed with `pretty`), a form by field, other UTF-8 text as is; `nil` for
    /// bytes that are neither JSON nor UTF-8 text. Shared with ``CURLCommand``.
    func redactBody(_ data: Data, contentType: String?, pretty: Bool) -> String? {
        let options: JSONSerialization.WritingOptions = pretty ? [.prettyPrinted, .sortedKeys, .fragmentsAllowed] : [.sortedKeys, .fragmentsAllowed]
        if let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
           let written = try? JSONSerialization.data(withJSONObject: redactJSON(json), options: options) {
            return String(decoding: written, as: UTF8.self)
        }
        guard let string = String(data: data, encoding: .utf8) else { return nil }
        return (contentType ?? "").lowercased().contains("x-www-form-urlencoded") ? redactForm(string) : string
    }

    /// A JSON value with hidden keys masked, at any depth (parameter names and header
    /// names both count, for bodies that carry headers).
    func redactJSON(_ value: Any) -> Any {
        if let dictionary = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, nested) in dictionary {
                result[key] = hidesParameter(key) || hidesHeader(key) ? Self.mask : redactJSON(nested)
            }
            return result
        }
        if let array = value as? [Any] {
            var result: [Any] = []
            result.reserveCapacity(array.count)
            for element in array {
                result.append(redactJSON(element))
            }
            return result
        }
        return value
    }

    /// A form body with hidden fields masked.
    func redactForm(_ body: String) -> String {
        body.components(separatedBy: "&").map { pair -> String in
            let name = pair.firstIndex(of: "=").map { String(pair[..<$0]) } ?? pair
            let decoded = name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name
            // `user[password]`, `items[0][token]`: any part of the name counts.
            let hidden = decoded.components(separatedBy: Self.nameBrackets).contains { !$0.isEmpty && hidesParameter($0) }
            return hidden ? name + "=" + Self.mask : pair
        }.joined(separator: "&")
    }

    /// What separates the parts of a form field's name.
    private static let nameBrackets = CharacterSet(charactersIn: "[]")
}
