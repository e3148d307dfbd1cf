import Foundation

/// Why a request's parameters or encodable body cannot be encoded, and where. It becomes an
/// `.encoding` ``NetworkError`` whose message names the key path (`user.dates[2]`) and the
/// value's type, never the value itself: parameters carry passwords and tokens, and error
/// messages end up in logs.
struct EncodingFailure: Error {
    enum Reason {
        /// Nested deeper than ``maximumDepth``.
        case tooDeep
        /// A number or a date that is NaN or infinite.
        case nonFinite
        /// A `Date` in JSON parameters, which have no date type.
        case date
        /// A collection other than an array or a dictionary with string keys.
        case collection
        /// A value JSON has no form for.
        case notJSON
    }

    /// The deepest a value may sit in parameters or in an encodable body: the parameters (or
    /// the body's top-level value) are level 1, and each value inside an array or a
    /// dictionary is one level deeper than it. The same limit as Foundation's
    /// `JSONSerialization`, far deeper than any real payload.
    static let maximumDepth = 512

    let reason: Reason
    /// The key path: keys, and indices as `[2]`.
    let path: [String]
    let typeName: String

    init(_ reason: Reason, path: [String], type: Any.Type) {
        self.reason = reason
        self.path = path
        typeName = String(describing: type)
    }

    /// The sentence for the error's message.
    var message: String {
        let rule: String
        switch reason {
        case .tooDeep:
            return Self.subject(path) + " is nested deeper than 512 levels, the most EasyNetwork encodes"
        case .nonFinite:
            rule = " that is not finite (NaN or infinity)"
        case .date:
            rule = ", which JSON cannot represent: send it as a string (ISO 8601) or a number, or use an encodableBody"
        case .collection:
            rule = ": only arrays and dictionaries with String keys can hold other parameters"
        case .notJSON:
            rule = ", which JSON cannot represent (only strings, finite numbers, booleans, NSNull, arrays and dictionaries with String keys)"
        }
        return Self.subject(path) + " is a " + typeName + rule
    }

    /// The `.encoding` error for a request to `url`.
    func networkError(url: URL?, underlyingError: (any Error)? = nil) -> NetworkError {
        NetworkError(kind: .encoding, message: message, url: url, underlyingError: underlyingError)
    }

    /// `the value at 'user.dates[2]'`, or `the top-level value`.
    static func subject(_ path: [String]) -> String {
        path.isEmpty ? "the top-level value" : "the value at '" + render(path) + "'"
    }

    /// `user.dates[2]`: keys joined by dots, indices in brackets. A long key is cut to its
    /// first 40 bytes and a long path to its first 8 and last 4 steps, so that a message
    /// stays short whatever the caller's keys (the whole path is in a body's `EncodingError`).
    static func render(_ path: [String]) -> String {
        var text = ""
        for (position, step) in path.enumerated() {
            if path.count > 12, position >= 8, position < path.count - 4 {
                if position == 8 { text += "…" }
                continue
            }
            if step.hasPrefix("[") {
                text += step
            } else {
                if position > 0 { text += "." }
                // Counted in bytes: one character may hold a megabyte of combining marks
                // (a cut inside a character leaves the key out).
                text += step.utf8.count > 40 ? (String(step.utf8.prefix(40)) ?? "") + "…" : step
            }
        }
        return text
    }
}
