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
            append(" -H ", line, to: &command)
        }
        if let body = request.httpBody, case let size = body.count, size > 0 {
            var text: String?
            if let redaction {
                text = redaction.redactBody(body, contentType: request.value(forHTTPHeaderField: "Content-Type"), pretty: false)
            } else {
                text = String(data: body, encoding: .utf8)
            }
            append(" --data-binary ", text ?? "<" + String(size) + " bytes>", to: &command)
        }
        let url = request.url
        append(" ", redaction?.redact(url) ?? url?.absoluteString ?? "", to: &command)
        return command
    }

    /// Appends `flag` and `text` in single quotes for a POSIX shell to `command`.
    @inline(never)  // one copy for the three parts
    private static func append(_ flag: String, _ text: String, to command: inout String) {
        command += flag
        command += "'"
        command += LogRedaction.replacing("'", in: text, with: "'\\''")
        command += "'"
    }
}
