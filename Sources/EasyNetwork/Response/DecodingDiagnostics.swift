import Foundation

/// Words for a decoding failure: what was expected and where.
///
/// Never a byte of the body: an error's sentences reach the host app's logs and crash
/// reports. The body stays on the error (``NetworkError/data``, ``NetworkError/bodySnippet``).
///
/// The words are static members of ``NetworkError``, the error they go into, called under
/// this name: a namespace `enum` of its own is type metadata and an accessor in every program.
@usableFromInline
typealias DecodingDiagnostics = NetworkError

extension NetworkError {
    /// What went wrong for an encoding error (``EncodingFailure/invalid(_:_:_:)``: named by
    /// key path and type, never by the value); the localized description of any other error.
    /// The core's words: a `DecodingError` (which only ``NetworkResponse/decode(_:decoder:)``
    /// meets) is named in ``decodingReason(for:)``, emitted into the caller with it. A
    /// `DecodingError` a custom decoder throws reads Foundation's `The data isn’t in the
    /// correct format`, which quotes nothing.
    @usableFromInline @_optimize(size)
    static func reason(for error: any Error) -> String {
        if case .invalidValue(let value, let context)? = error as? EncodingError {
            return EncodingFailure.invalid(type(of: value), context.codingPath, context.debugDescription)
        }
        return (error as NSError).localizedDescription
    }

    /// What went wrong and at which key path (`expected Int at .items[1].id: …`) for a
    /// decoding error; ``reason(for:)`` for any other error.
    ///
    /// A `dataCorrupted` error is named by its key path only: Foundation's description of it
    /// quotes the value (`Cannot initialize Role from invalid String value …`,
    /// `Parsed JSON number <…> does not fit in Int`). The other kinds' descriptions name types
    /// (`Expected to decode String but found number instead`).
    @_alwaysEmitIntoClient
    static func decodingReason(for error: any Error) -> String {
        // One sentence for every kind: few string appends.
        let lead: String, type: Any.Type?, context: DecodingError.Context, tail: String
        switch error as? DecodingError {
        case .typeMismatch(let expected, let found)?: (lead, type, context, tail) = ("expected ", expected, found, "")
        case .valueNotFound(let expected, let found)?: (lead, type, context, tail) = ("no value of type ", expected, found, "")
        case .keyNotFound(let key, let found)?: (lead, type, context, tail) = ("missing key '\(key.stringValue)'", nil, found, "")
        case .dataCorrupted(let found)?: (lead, type, context, tail) = ("corrupted data", nil, found, " (not JSON, or a value the type refuses)")
        default: return reason(for: error)
        }
        return "\(lead)\(type.map(name) ?? "") at \(path(context.codingPath))\(type == nil ? tail : ": " + context.debugDescription)"
    }

    /// The name of `type`, as `String(describing:)` gives it (one call site for every
    /// sentence that names a type).
    @inline(never) @usableFromInline @_optimize(size)
    static func name(of type: Any.Type) -> String {
        String(describing: type)
    }

    /// A key path such as `.items[1].id`, or `the top level`.
    @_alwaysEmitIntoClient
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            text += key.intValue.map { "[\($0)]" } ?? "." + key.stringValue
        }
        return text.isEmpty ? "the top level" : text
    }
}
