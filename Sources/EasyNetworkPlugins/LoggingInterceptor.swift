#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Logs requests through a hook you give, or to the console. Off until you add it:
///
/// ```swift
/// host.interceptors.append(LoggingInterceptor.console(level: .debug))
/// host.interceptors.append(LoggingInterceptor(level: .info) { level, text in myLogger.log(level, text) })
/// ```
///
/// `info` gives one line per request (method, URL, status, duration, size, attempts);
/// `debug` adds each attempt's headers, a pretty-printed and truncated JSON body and a
/// cURL command, and the response body. Values ``LogRedaction`` names are masked.
public struct LoggingInterceptor: RequestInterceptor {
    /// Receives each message with its level.
    public typealias Sink = @Sendable (_ level: LogLevel, _ message: String) -> Void

    /// The lowest level passed on.
    public let level: LogLevel
    /// What is masked.
    public let redaction: LogRedaction
    /// The longest body shown, in characters.
    public let bodyLimit: Int
    private let sink: Sink

    /// A logger that hands messages at `level` or above to `sink`.
    public init(level: LogLevel = .info, redaction: LogRedaction = .default, bodyLimit: Int = 2000, sink: @escaping Sink) {
        self.level = level
        self.redaction = redaction
        self.bodyLimit = max(0, bodyLimit)
        self.sink = sink
    }

    /// A logger that prints to standard output, prefixed with `[EasyNetwork]`.
    public static func console(level: LogLevel = .info, redaction: LogRedaction = .default) -> LoggingInterceptor {
        LoggingInterceptor(level: level, redaction: redaction) { _, message in
            print("[EasyNetwork] " + message)
        }
    }

    /// Logs the attempt at `debug`: method, URL, headers, body, cURL.
    public func willSend(_ urlRequest: URLRequest, context: RequestContext) {
        guard level <= .debug else { return }
        var lines = ["→ \(urlRequest.httpMethod ?? "GET") \(redaction.redact(urlRequest.url))" + (context.attempt > 1 ? " (attempt \(context.attempt))" : "")]
        for line in HeaderLines.of(urlRequest.allHTTPHeaderFields ?? [:], redaction: redaction) {
            lines.append("  " + line)
        }
        if let body = redaction.describeBody(urlRequest.httpBody, contentType: urlRequest.value(forHTTPHeaderField: "Content-Type"), limit: bodyLimit) {
            lines.append(indent(body))
        }
        lines.append("  " + CURLCommand.make(for: urlRequest, redaction: redaction))
        sink(.debug, lines.joined(separator: "\n"))
    }

    /// Logs the outcome: `info` for success, `error` for failure, with the response
    /// body at `debug`.
    public func didFinish(_ outcome: RequestOutcome, context: RequestContext) {
        let messageLevel: LogLevel = outcome.error == nil ? .info : .error
        guard level <= messageLevel else { return }
        if outcome.error?.isCancelled == true, level > .debug { return }
        let method = outcome.urlRequest?.httpMethod ?? context.request.method.rawValue
        let url = redaction.redact(outcome.urlRequest?.url ?? outcome.error?.url ?? Self.intendedURL(of: context))
        let status = outcome.response.map { String($0.statusCode) } ?? "---"
        let milliseconds = Int((outcome.metrics.duration * 1000).rounded())
        let attempts = outcome.metrics.attempts > 1 ? ", \(outcome.metrics.attempts) attempts" : ""
        var line = "← \(status) \(method) \(url) \(milliseconds) ms, \(outcome.metrics.bytesReceived) bytes\(attempts)"
        if let error = outcome.error {
            line += " ✕ \(error.localizedDescription)"
        }
        var lines = [line]
        if level <= .debug {
            if let response = outcome.response {
                var headers = HeaderLines(redaction: redaction)
                for (name, value) in response.allHeaderFields {
                    if let name = name as? String { headers.add(name, "\(value)") }
                }
                for line in headers.lines {
                    lines.append("  " + line)
                }
            }
            if let body = redaction.describeBody(outcome.data, contentType: outcome.response?.value(forHTTPHeaderField: "Content-Type"), limit: bodyLimit) {
                lines.append(indent(body))
            }
        }
        sink(messageLevel, lines.joined(separator: "\n"))
    }

    /// The URL a request that ended before it was sent (a failed adapt, token refresh
    /// or build, a cancel) was meant for, so that no line lacks one.
    static func intendedURL(of context: RequestContext) -> URL? {
        // The form as the builder reads it (GET and HEAD send none).
        let request = context.request, form = request.method.sendsParametersInQuery ? nil : request.multipartBody
        if let url = try? URLRequestBuilder(configuration: context.host).build(request, multipart: form, exactTimeout: false).url {
            return url
        }
        return context.request.absoluteURL ?? URL(string: context.request.api, relativeTo: context.host.baseURL)
    }

    private func indent(_ text: String) -> String {
        "  " + text.replacingOccurrences(of: "\n", with: "\n  ")
    }
}
