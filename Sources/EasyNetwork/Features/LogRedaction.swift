import Foundation

/// What a log must never show: header values and parameter values by name
/// (case-insensitive), replaced by `<redacted>` in headers, URL queries, form bodies
/// and JSON bodies at any depth.
public struct LogRedaction: Sendable {
    /// Header names whose values are hidden.
    public var headers: Set<String>
    /// Parameter names whose values are hidden.
    public var parameters: Set<String>

    /// A redaction; the defaults hide `Authorization`, `Proxy-Authorization`, `Cookie`,
    /// `Set-Cookie`, and parameters named like passwords, tokens and secrets.
    public init(
        headers: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"],
        parameters: Set<String> = ["password", "passwd", "token", "access_token", "refresh_token", "accesstoken", "refreshtoken", "secret", "client_secret", "api_key", "apikey"]
    ) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.parameters = Set(parameters.map { $0.lowercased() })
    }

    /// The default redaction.
    public static let `default` = LogRedaction()

    /// The text that replaces a hidden value.
    public static let mask = "<redacted>"

    /// Whether the header `name` is hidden.
    public func hidesHeader(_ name: String) -> Bool {
        headers.contains(name.lowercased())
    }

    /// Whether the parameter `name` is hidden.
    public func hidesParameter(_ name: String) -> Bool {
        parameters.contains(name.lowercased())
    }

    /// `url` as text with hidden query values masked (for display, not a URL).
    public func redact(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
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
        var text: String
        if let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
           let pretty = try? JSONSerialization.data(withJSONObject: redactJSON(json), options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed]) {
            text = String(decoding: pretty, as: UTF8.self)
        } else if let string = String(data: data, encoding: .utf8) {
            text = (contentType ?? "").lowercased().contains("x-www-form-urlencoded") ? redactForm(string) : string
        } else {
            return "(\(data.count) bytes of binary data)"
        }
        if text.count > limit {
            text = String(text.prefix(limit)) + "… (\(data.count) bytes in all)"
        }
        return text
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
            return array.map(redactJSON)
        }
        return value
    }

    /// A form body with hidden fields masked.
    func redactForm(_ body: String) -> String {
        body.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts.first ?? "")
            let decoded = name.removingPercentEncoding ?? name
            let bare = decoded.components(separatedBy: "[").first ?? decoded
            return hidesParameter(bare) ? "\(name)=\(Self.mask)" : String(pair)
        }.joined(separator: "&")
    }
}
