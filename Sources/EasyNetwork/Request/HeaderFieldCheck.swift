import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Checks header fields where they enter a request (the request's and the host's headers,
/// the session configuration's, each interceptor's adapted request, the token): a name
/// must be an RFC 9110 token, a value must hold no CR, LF or NUL. The check is one scan of
/// the bytes, allocating nothing; only a refusal builds its ``HeaderFieldError``.
package enum HeaderFieldCheck {
    /// The token characters (`tchar`) below 64 and from 64 to 127, one bit each.
    private static let tokenLow: UInt64 = 0x03FF_6CFA_0000_0000  // ! # $ % & ' * + - . 0-9
    private static let tokenHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE  // A-Z ^ _ ` a-z | ~

    /// Whether `name` is a non-empty RFC 9110 token.
    package static func isValidName(_ name: String) -> Bool {
        let scanned = scan(name)
        return scanned.found & 16 == 0 && scanned.count > 0
    }

    /// Whether `value` holds no CR, LF or NUL.
    package static func isValidValue(_ value: String) -> Bool {
        scan(value).found & 7 == 0
    }

    /// One pass over the bytes of `text`, the only loop of the check. `found` has a bit for
    /// each kind of byte it holds: CR 1, LF 2, NUL 4, another control character 8, any byte
    /// that is not a token character 16 (`refused` is the first such). `first`, `last` and
    /// `breaks`: where the first and last CR, LF or NUL are, and how many; `count`: all bytes.
    @inline(never)
    private static func scan(_ text: String) -> (found: Int, refused: UInt8, first: Int, last: Int, breaks: Int, count: Int) {
        // Over the contiguous bytes of a native string (a copy for any other): far less
        // code than the UTF-8 view's iterator.
        if let scanned = text.utf8.withContiguousStorageIfAvailable(scan) {
            return scanned
        }
        return Array(text.utf8).withUnsafeBufferPointer(scan)
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (found: Int, refused: UInt8, first: Int, last: Int, breaks: Int, count: Int) {
        var found = 0, refused: UInt8 = 0, first = -1, last = -1, breaks = 0, count = 0
        for byte in bytes {
            let token = byte < 64 ? (tokenLow >> UInt64(byte)) & 1 == 1 : byte < 128 && (tokenHigh >> UInt64(byte - 64)) & 1 == 1
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

    /// The failure of the first refused field of `fields`, or `nil` when every one is valid.
    /// `interceptor`, when given, is named as the source (only for a refusal).
    package static func failure(in fields: [String: String]?, url: URL?, source: String, of interceptor: (any RequestInterceptor)? = nil) -> NetworkError? {
        guard let fields else { return nil }
        for (name, value) in fields where !isValidName(name) || !isValidValue(value) {
            return failure(name: name, value: value, source: interceptor.map { "interceptor " + DecodingDiagnostics.name(of: type(of: $0)) } ?? source, url: url)
        }
        return nil
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
    /// value is described, never quoted. Cold: only a refusal calls it.
    @inline(never)
    package static func failure(name: String?, value: String, source: String, url: URL?) -> NetworkError {
        let header = refusal(name: name, value: value, source: source)
        return NetworkError(kind: .invalidRequest, message: header.description + "; nothing was sent", url: url, underlyingError: header)
    }

    /// The ``HeaderFieldError`` of one refused field (`name` invalid, else `value`).
    static func refusal(name: String?, value: String, source: String) -> HeaderFieldError {
        let named = name.map(scan)
        let invalidName = named.map { $0.found & 16 != 0 || $0.count == 0 } ?? false
        let problem: String
        if let named, invalidName {
            problem = named.count == 0 ? "its name is empty" : "its name holds " + describe(named.refused)
        } else {
            let scanned = scan(value)
            let trailing = scanned.breaks == scanned.count - scanned.first, leading = scanned.breaks == scanned.last + 1
            problem = (name == nil ? "it" : "its value")
                + (trailing && leading ? " is only " : trailing ? " ends with " : leading ? " starts with " : " holds ")
                + breaks(scanned.found & 7)
        }
        // A name holding a line break or another control character is not repeated.
        return HeaderFieldError(name: name, shown: (named?.found ?? 0) & 15 == 0, source: source, problem: problem, isInvalidName: invalidName)
    }

    /// The CR (1), LF (2) and NUL (4) in `found`, in words.
    @inline(__always)  // one caller
    private static func breaks(_ found: Int) -> String {
        switch found {
        case 1: return "a carriage return (CR)"
        case 2: return "a line feed (LF)"
        case 3: return "a carriage return (CR) and a line feed (LF)"
        case 4: return "a NUL byte"
        case 5: return "a carriage return (CR) and a NUL byte"
        case 6: return "a line feed (LF) and a NUL byte"
        default: return "a carriage return (CR), a line feed (LF) and a NUL byte"
        }
    }

    /// A byte no header name may hold, in words.
    @inline(__always)  // one caller
    private static func describe(_ byte: UInt8) -> String {
        byte == 32 ? "a space" : byte == 58 ? "a colon" : byte == 10 ? "a line feed (LF)" : byte == 13 ? "a carriage return (CR)"
            : byte >= 128 ? "a character outside ASCII" : byte < 32 || byte == 127 ? "a control character" : "a separator such as ( ) , / ; < = > ? @ [ \\ ] { } or \""
    }
}
