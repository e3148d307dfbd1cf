import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `curl` command that repeats a request, for logs and support tickets, with the
/// values a ``LogRedaction`` hides masked.
public enum CURLCommand {
    /// The command for `request`; pass `redaction: nil` to show every value.
    public static func make(for request: URLRequest, redaction: LogRedaction? = .default) -> String {
        var parts = ["curl"]
        let method = request.httpMethod ?? "GET"
        if method != "GET" {
            parts.append("-X \(method)")
        }
        for line in HeaderLines.of(request.allHTTPHeaderFields ?? [:], redaction: redaction) {
            parts.append("-H " + quoted(line))
        }
        if let body = request.httpBody, !body.isEmpty {
            var text = String(data: body, encoding: .utf8) ?? "<\(body.count) bytes>"
            if let redaction {
                let contentType = request.value(forHTTPHeaderField: "Content-Type") ?? ""
                if let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
                   let data = try? JSONSerialization.data(withJSONObject: redaction.redactJSON(json), options: [.sortedKeys, .fragmentsAllowed]) {
                    text = String(decoding: data, as: UTF8.self)
                } else if contentType.lowercased().contains("x-www-form-urlencoded") {
                    text = redaction.redactForm(text)
                }
            }
            parts.append("--data-binary " + quoted(text))
        }
        let url = redaction.map { $0.redact(request.url) } ?? request.url?.absoluteString ?? ""
        parts.append(quoted(url))
        return parts.joined(separator: " ")
    }

    /// `text` in single quotes for a POSIX shell.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
