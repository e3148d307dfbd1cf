/// How much a ``LoggingInterceptor`` tells: each message has a level, and the
/// interceptor passes on those at or above its own.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    /// Everything: requests with headers, bodies and a cURL command, and response bodies.
    case debug = 0
    /// One line per finished request: method, URL, status, duration, size, attempts.
    case info = 1
    /// Failures only.
    case error = 2

    /// The level's number: 0 for `debug`, 1 for `info`, 2 for `error`.
    @_alwaysEmitIntoClient  // inlined into its witness and callers, no copy of its own
    public var rawValue: Int {
        switch self {
        case .debug: return 0
        case .info: return 1
        case .error: return 2
        }
    }

    /// The level numbered `rawValue`, or `nil` for a number no level has.
    @_alwaysEmitIntoClient
    public init?(rawValue: Int) {
        switch rawValue {
        case 0: self = .debug
        case 1: self = .info
        case 2: self = .error
        default: return nil
        }
    }

    /// Every level, from `debug` to `error`.
    @_alwaysEmitIntoClient
    public static var allCases: [LogLevel] { [.debug, .info, .error] }

    /// Orders levels from `debug` to `error`.
    @_alwaysEmitIntoClient  // inlined into its witness and callers, no copy of its own
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
