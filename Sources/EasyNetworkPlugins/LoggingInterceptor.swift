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

    /// The settings, in one immutable object: a logger is one reference (the runtime's
    /// shared value witnesses, none of its own; it fits an existential's inline buffer).
    private final class Fields: Sendable {
        let level: LogLevel
        let redaction: LogRedaction
        let bodyLimit: Int
        let sink: Sink

        init(level: LogLevel, redaction: LogRedaction, bodyLimit: Int, sink: @escaping Sink) {
            self.level = level
            self.redaction = redaction
            self.bodyLimit = bodyLimit
            self.sink = sink
        }
    }

    private let fields: Fields

    /// The lowest level passed on.
    public var level: LogLevel { fields.level }
    /// What is masked.
    public var redaction: LogRedaction { fields.redaction }
    /// The longest body shown, in characters.
    public var bodyLimit: Int { fields.bodyLimit }
    private var sink: Sink { fields.sink }

    /// A logger that hands messages at `level` or above to `sink`.
    public init(level: LogLevel = .info, redaction: LogRedaction = .default, bodyLimit: Int = 2000, sink: @escaping Sink) {
        fields = Fields(level: level, redaction: redaction, bodyLimit: max(0, bodyLimit), sink: sink)
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
        var text = "→ "
        text += urlRequest.httpMethod ?? "GET"
        text += " "
        text += redaction.redact(urlRequest.url)
        if context.attempt > 1 {
            text += " (attempt "
            Self.add(context.attempt, ")", to: &text)
        }
        append(HeaderLines.of(urlRequest.allHTTPHeaderFields, redaction: redaction), urlRequest.httpBody, urlRequest.value(forHTTPHeaderField: "Content-Type"), to: &text)
        text += "\n  "
        text += CURLCommand.make(for: urlRequest, redaction: redaction)
        sink(.debug, text)
    }

    /// Logs the outcome: `info` for success, `error` for failure, with the response
    /// body at `debug`.
    public func didFinish(_ outcome: RequestOutcome, context: RequestContext) {
        let error = outcome.error
        let messageLevel: LogLevel = error == nil ? .info : .error
        guard level <= messageLevel else { return }
        if error?.isCancelled == true, level > .debug { return }
        let request = outcome.urlRequest, response = outcome.response, metrics = outcome.metrics
        var text = "← "
        if let response {
            Self.add(response.statusCode, " ", to: &text)
        } else {
            text += "--- "
        }
        text += request?.httpMethod ?? context.request.method.rawValue
        text += " "
        text += redaction.redact(request?.url ?? error?.url ?? Self.intendedURL(of: context))
        text += " "
        Self.add(Int((metrics.duration * 1000).rounded()), " ms, ", to: &text)
        Self.add(Int(metrics.bytesReceived), " bytes", to: &text)
        if metrics.attempts > 1 {
            text += ", "
            Self.add(metrics.attempts, " attempts", to: &text)
        }
        if let error {
            text += " ✕ "
            text += error.errorDescription ?? ""  // its localizedDescription, without bridging to NSError
        }
        if level <= .debug {
            // The runtime's cast from `Any` (the fields are strings on every platform), not
            // a loop over `AnyHashable` keys compiled here.
            let fields: Any? = response?.allHeaderFields
            append(HeaderLines.of(fields as? [String: String], redaction: redaction), outcome.data, response?.value(forHTTPHeaderField: "Content-Type"), to: &text)
        }
        sink(messageLevel, text)
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

    /// Adds `number` and then `words` to `text` (one copy of the number's formatting).
    @inline(never)
    private static func add(_ number: Int, _ words: String, to text: inout String) {
        text += String(number)
        text += words
    }

    /// Adds header `lines` and the described `body` to `text`, each line indented.
    @inline(never)  // one copy for both messages
    private func append(_ lines: [String], _ body: Data?, _ contentType: String?, to text: inout String) {
        for line in lines {
            text += "\n  "
            text += line
        }
        if let body = redaction.describeBody(body, contentType: contentType, limit: bodyLimit) {
            text += "\n  "
            text += LogRedaction.replacing("\n", in: body, with: "\n  ")
        }
    }
}
