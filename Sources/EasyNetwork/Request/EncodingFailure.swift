import Foundation

/// Why a request's parameters or encodable body cannot be encoded, and where: the texts of
/// an `.encoding` ``NetworkError`` whose message names the key path (`user.dates[2]`) and
/// the value's type, never the value itself: parameters carry passwords and tokens, and
/// error messages end up in logs.
///
/// A message is `subject(path)` followed by `" is a <type>"` and a rule's text (for
/// parameters, see ``ParameterWalker``), or by ``tooDeep``.
enum EncodingFailure {
    /// The deepest a value may sit in parameters or in an encodable body: the parameters (or
    /// the body's top-level value) are level 1, and each value inside an array or a
    /// dictionary is one level deeper than it. The same limit as Foundation's
    /// `JSONSerialization`, far deeper than any real payload.
    static let maximumDepth = 512

    /// The end of the sentence of a value nested deeper than ``maximumDepth``.
    static let tooDeep = " is nested deeper than 512 levels, the most EasyNetwork encodes"

    /// The end of the sentence of a number or a date that is NaN or infinite.
    static let nonFinite = " that is not finite (NaN or infinity)"

    /// An encoder's refusal of `value` (`the value at 'stats.ratio' (Double) is invalid: …`),
    /// or, for what swift-foundation's writer says of containers nested 512 deep, `it is
    /// nested deeper than 512 levels…`. Named by its type: the value itself may be a secret
    /// (or the whole body).
    @inline(__always)  // one caller, DecodingDiagnostics.reason(for:)
    static func invalid(_ value: Any, _ context: EncodingError.Context) -> String {
        var path: [String] = []
        for key in context.codingPath {
            path.append(key.intValue.map { "[" + String($0) + "]" } ?? key.stringValue)
        }
        if path.isEmpty, context.debugDescription == "Unable to encode the given top-level value to JSON." {
            return "it" + tooDeep
        }
        return subject(path) + " (" + DecodingDiagnostics.name(of: type(of: value)) + ") is invalid: " + context.debugDescription
    }

    /// `the value at 'user.dates[2]'`, or `the top-level value`.
    @inline(never)
    static func subject(_ path: [String]) -> String {
        path.isEmpty ? "the top-level value" : "the value at '" + render(path) + "'"
    }

    /// `user.dates[2]`: keys joined by dots, indices in brackets. A long key is cut to its
    /// first 40 bytes and a long path to its first 8 and last 4 steps, so that a message
    /// stays short whatever the caller's keys (the whole path is in a body's `EncodingError`).
    @inline(__always)  // one caller
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
                let bytes = step.utf8
                text += bytes.count > 40 ? (String(bytes[bytes.startIndex..<bytes.index(bytes.startIndex, offsetBy: 40)]) ?? "") + "…" : step
            }
        }
        return text
    }
}
