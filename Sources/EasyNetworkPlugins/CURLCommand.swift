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
            let text = redaction.map { $0.redactBody(body, contentType: request.value(forHTTPHeaderField: "Content-Type"), pretty: false) }
                ?? String(data: body, encoding: .utf8)
            parts.append("--data-binary " + quoted(text ?? "<\(body.count) bytes>"))
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
