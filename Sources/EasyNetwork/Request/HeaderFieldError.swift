import Foundation

/// A header field refused before anything was sent: its name is not an HTTP token
/// (RFC 9110: letters, digits and `!#$%&'*+-.^_|~` or a backtick), or its value holds a carriage
/// return (CR), a line feed (LF) or NUL.
///
/// Such a request fails with a ``NetworkError`` of kind
/// ``NetworkError/Kind-swift.enum/invalidRequest`` whose ``NetworkError/underlyingError``
/// is this error, instead of going out without the header (Foundation on Linux drops a
/// value holding CR or LF inside `URLRequest.setValue`) or with a broken one. Nothing is
/// trimmed for you: a token read from a file keeps its trailing newline, and the error
/// says so. The value itself is never repeated (it may be a secret). An interceptor that
/// calls `setValue` itself checks first with ``check(name:value:)``: on Linux that call
/// drops such a value before the library can see it.
///
/// ```swift
/// if let header = error.underlyingError as? HeaderFieldError {
///     print(header.name ?? "token", header.problem)   // "X-Api-Key", "its value ends with a line feed (LF)"
/// }
/// ```
public final class HeaderFieldError: Error, Sendable, CustomStringConvertible {
    /// The header's name as it was given; `nil` for the token of a `TokenAuthenticator`,
    /// whose `apply` closure chooses the header (`Authorization` by default).
    public let name: String?
    /// Where the header came from: `"the request's headers"`, `"the host's default headers"`,
    /// `"the host's session configuration"`, `"interceptor <type>"`, `"the host's redirectHandler"`, or
    /// `"the token of the host's TokenAuthenticator"`.
    public let source: String
    /// What is wrong, without the value: `"its value ends with a line feed (LF)"`,
    /// `"its name holds a space"`.
    public let problem: String
    /// Whether the name, not the value, was refused.
    public let isInvalidName: Bool

    /// Whether ``description`` may repeat the name (it holds no line break or other
    /// control character, which would break a log line).
    private let showsName: Bool

    @inline(never)  // one copy, not another inside the allocating entry
    package init(name: String?, shown: Bool, source: String, problem: String, isInvalidName: Bool) {
        self.name = name
        showsName = shown
        self.source = source
        self.problem = problem
        self.isInvalidName = isInvalidName
    }

    /// The refusal a header `name` with `value` would cause, or `nil` when both are valid.
    /// For an interceptor that sets a header from outside data: on Linux `setValue` drops a
    /// value holding CR or LF before the library can see it (the header keeps its former
    /// value, or none), so check first and throw this error from `adapt`.
    public static func check(name: String, value: String) -> HeaderFieldError? {
        guard !HeaderFieldCheck.isValidName(name) || !HeaderFieldCheck.isValidValue(value) else { return nil }
        return HeaderFieldCheck.refusal(name: name, value: value, source: "an interceptor")
    }

    /// One sentence: the header (by name, unless the name holds a control character), where
    /// it came from and what is wrong.
    public var description: String {
        (name == nil ? "the token" : showsName ? "header '" + (name ?? "") + "'" : "a header") + " of " + source + ": " + problem
    }
}
