import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `curl` command that repeats a request, for logs and support tickets, with the
/// values a ``LogRedaction`` hides masked.
public enum CURLCommand {
    /// The command for `request`; pass `redaction: nil` to show every value.
    public static func make(for request: URLRequest, redaction: LogRedaction? = .default) -> String {
        var command = "curl"
        let method = request.httpMethod ?? "GET"
        if method != "GET" {
            command += " -X "
            command += method
        }
        for line in HeaderLines.of(request.allHTTPHeaderFields, redaction: redaction) {
            command += " -H "
            command += quoted(line)
        }
        if let body = request.httpBody, !body.isEmpty {
            var text: String?
            if let redaction {
                text = redaction.redactBody(body, contentType: request.value(forHTTPHeaderField: "Content-Type"), pretty: false)
            } else {
                text = String(data: body, encoding: .utf8)
            }
            command += " --data-binary "
            command += quoted(text ?? "<" + String(body.count) + " bytes>")
        }
        let url = request.url
        command += " "
        command += quoted(redaction?.redact(url) ?? url?.absoluteString ?? "")
        return command
    }

    /// `text` in single quotes for a POSIX shell.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
