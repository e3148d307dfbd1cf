import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The checks of header fields where they enter a request, under the name their callers
/// use: static members of ``HeaderFieldError`` (one type).
package typealias HeaderFieldCheck = HeaderFieldError

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
/// The check itself (`HeaderFieldCheck`) runs where header fields enter a request (the
/// request's and the host's headers, the session configuration's, each interceptor's
/// adapted request, the token): a name must be an RFC 9110 token, a value must hold no
/// CR, LF or NUL. It is one scan of the bytes, allocating nothing; only a refusal builds
/// an error.
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

    init(name: String?, shown: Bool, source: String, problem: String, isInvalidName: Bool) {
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
    @_alwaysEmitIntoClient
    public static func check(name: String, value: String) -> HeaderFieldError? {
        guard !isValidName(name) || !isValidValue(value) else { return nil }
        return headerFieldRefusal(name: name, value: value, source: "an interceptor")
    }

    /// One sentence: the header (by name, unless the name holds a control character), where
    /// it came from and what is wrong.
    public var description: String {
        // Appended piece by piece: no temporary string per `+`.
        var text = name == nil ? "the token" : showsName ? "header '" : "a header"
        if showsName, let name {
            text += name
            text += "'"
        }
        text += " of "
        text += source
        text += ": "
        text += problem
        return text
    }

    /// The token characters (`tchar`) below 64 and from 64 to 127, one bit each.
    fileprivate static let tokenLow: UInt64 = 0x03FF_6CFA_0000_0000  // ! # $ % & ' * + - . 0-9
    fileprivate static let tokenHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE  // A-Z ^ _ ` a-z | ~

    /// Whether `name` is a non-empty RFC 9110 token.
    @_alwaysEmitIntoClient
    package static func isValidName(_ name: String) -> Bool {
        let scanned = headerFieldScan(name)
        return scanned.found & 16 == 0 && scanned.count > 0
    }

    /// Whether `value` holds no CR, LF or NUL.
    @_alwaysEmitIntoClient
    package static func isValidValue(_ value: String) -> Bool {
        headerFieldScan(value).found & 7 == 0
    }


    /// The failure of the first refused field of `fields`, or `nil` when every one is valid.
    /// `interceptor`, the type of the interceptor that set them, is named as the source
    /// when given (only for a refusal). (Compiled into the caller over a free function: a
    /// static member compiles a second entry without its unused type argument.)
    @_alwaysEmitIntoClient
    package static func failure(in fields: [String: String]?, url: URL?, source: String, of interceptor: Any.Type? = nil) -> NetworkError? {
        headerFieldsFailure(fields, url, source, interceptor)
    }

    /// The failure of the first refused field a session configuration adds to every request, or `nil`.
    static func failure(in configuration: URLSessionConfiguration) -> NetworkError? {
        let source = "the host's session configuration"
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation sends these only as `[String: String]`: it casts the
        // session's and the request's headers, merged, to that type and sends none of them
        // when the cast fails. So exactly the fields of that cast can reach the wire.
        // (Cast from `Any`: the runtime's cast, not a specialized dictionary downcast.)
        let headers: Any = configuration.httpAdditionalHeaders as Any
        return failure(in: headers as? [String: String], url: nil, source: source)
        #else
        for (key, value) in configuration.httpAdditionalHeaders ?? [:] {
            if let name = key.base as? String, let text = value as? String, !isValidName(name) || !isValidValue(text) {
                return failure(name: name, value: text, source: source, url: nil)
            }
        }
        return nil
        #endif
    }

    /// The request's failure for one refused field (`name` invalid, else `value`); the
    /// value is described, never quoted. (Compiled into the caller over a free function.)
    @_alwaysEmitIntoClient
    package static func failure(name: String?, value: String, source: String, url: URL?) -> NetworkError {
        headerFieldFailure(name: name, value: value, source: source, url: url)
    }
}

/// ``HeaderFieldError/failure(in:url:source:of:)``.
@usableFromInline
func headerFieldsFailure(_ fields: [String: String]?, _ url: URL?, _ source: String, _ interceptor: Any.Type?) -> NetworkError? {
    guard let fields else { return nil }
    for (name, value) in fields where !HeaderFieldError.isValidName(name) || !HeaderFieldError.isValidValue(value) {
        return headerFieldFailure(name: name, value: value, source: interceptor.map { "interceptor " + DecodingDiagnostics.name(of: $0) } ?? source, url: url)
    }
    return nil
}

/// ``HeaderFieldError/failure(name:value:source:url:)``. Cold: only a refusal calls it.
@inline(never) @usableFromInline
func headerFieldFailure(name: String?, value: String, source: String, url: URL?) -> NetworkError {
    let header = headerFieldRefusal(name: name, value: value, source: source)
    var message = header.description
    message += "; nothing was sent"
    return NetworkError.library(.invalidRequest, message, url: url, underlyingError: header)
}

/// The ``HeaderFieldError`` of one refused field (`name` invalid, else `value`): its
/// problem in fixed phrases (`phrase(_:)`), the value described, never quoted.
@usableFromInline
func headerFieldRefusal(name: String?, value: String, source: String) -> HeaderFieldError {
    // A name holding a line break or another control character is not repeated.
    var shown = true
    var invalidName = false
    var problem: String
    if let name, case let named = headerFieldScan(name), named.found & 16 != 0 || named.count == 0 {
        shown = named.found & 15 == 0
        invalidName = true
        problem = named.count == 0 ? "its name is empty" : "its name holds "
        if named.count > 0 { problem += HeaderFieldError.describe(named.refused) }
    } else {
        // The name, if any, is a token: nothing in it breaks a line.
        let scanned = headerFieldScan(value)
        let trailing = scanned.breaks == scanned.count - scanned.first, leading = scanned.breaks == scanned.last + 1
        problem = name == nil ? "it" : "its value"
        problem += HeaderFieldError.phrase(trailing && leading ? 2 : trailing ? 3 : leading ? 4 : 5)
        problem += HeaderFieldError.phrase(5 + scanned.found & 7)
    }
    return HeaderFieldError(name: name, shown: shown, source: source, problem: problem, isInvalidName: invalidName)
}

extension HeaderFieldError {
    /// The fixed phrases of a value's problem, after its subject: where the bytes are
    /// (2–5), then which of CR (1), LF (2) and NUL (4) it holds (5 + those bits, 6–12).
    @inline(never)
    fileprivate static func phrase(_ index: Int) -> String {
        switch index {
        case 2: return " is only "
        case 3: return " ends with "
        case 4: return " starts with "
        case 5: return " holds "
        case 6: return "a carriage return (CR)"
        case 7: return "a line feed (LF)"
        case 8: return "a carriage return (CR) and a line feed (LF)"
        case 9: return "a NUL byte"
        case 10: return "a carriage return (CR) and a NUL byte"
        case 11: return "a line feed (LF) and a NUL byte"
        default: return "a carriage return (CR), a line feed (LF) and a NUL byte"
        }
    }

    /// A byte no header name may hold, in words.
    @inline(__always)  // one caller
    fileprivate static func describe(_ byte: UInt8) -> String {
        byte == 32 ? "a space" : byte == 58 ? "a colon" : byte == 10 ? "a line feed (LF)" : byte == 13 ? "a carriage return (CR)"
            : byte >= 128 ? "a character outside ASCII" : byte < 32 || byte == 127 ? "a control character" : "a separator such as ( ) , / ; < = > ? @ [ \\ ] { } or \""
    }
}

/// One pass over the bytes of `text`, the only loop of the header check (a free function:
/// the checks compiled into their callers call it). `found` has a bit for
/// each kind of byte it holds: CR 1, LF 2, NUL 4, another control character 8, any byte
/// that is not a token character 16 (`refused` is the first such). `first`, `last` and
/// `breaks`: where the first and last CR, LF or NUL are, and how many; `count`: all bytes.
@inline(never) @usableFromInline
func headerFieldScan(_ text: String) -> (found: Int, refused: UInt8, first: Int, last: Int, breaks: Int, count: Int) {
    // Over the contiguous bytes (of a native copy, for any other string): far less
    // code than the UTF-8 view's iterator.
    let scan = { (bytes: UnsafeBufferPointer<UInt8>) -> (found: Int, refused: UInt8, first: Int, last: Int, breaks: Int, count: Int) in
        var found = 0, refused: UInt8 = 0, first = -1, last = -1, breaks = 0, count = 0
        for byte in bytes {
            let token = byte < 64 ? (HeaderFieldError.tokenLow >> UInt64(byte)) & 1 == 1 : byte < 128 && (HeaderFieldError.tokenHigh >> UInt64(byte - 64)) & 1 == 1
            if !token {
                if found == 0 { refused = byte }
                let bit = byte == 13 ? 1 : byte == 10 ? 2 : byte == 0 ? 4 : byte < 32 || byte == 127 ? 8 : 0
                if bit & 7 != 0 {
                    if first < 0 { first = count }
                    last = count
                    breaks += 1
                }
                found |= bit | 16
            }
            count += 1
        }
        return (found, refused, first, last, breaks, count)
    }
    return text.utf8.withContiguousStorageIfAvailable(scan) ?? Array(text.utf8).withUnsafeBufferPointer(scan)
}
