/// How much a ``LoggingInterceptor`` tells: each message has a level, and the
/// interceptor passes on those at or above its own.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    /// Everything: requests with headers, bodies and a cURL command, and response bodies.
    case debug = 0
    /// One line per finished request: method, URL, status, duration, size, attempts.
    case info = 1
    /// Failures only.
    case error = 2

    /// Orders levels from `debug` to `error`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
