import Foundation

/// Words for a decoding failure: what was expected, where, and how large the body was.
///
/// Never a byte of the body: an error's sentences reach the host app's logs and crash
/// reports. The body stays on the error (``NetworkError/data``, ``NetworkError/bodySnippet``).
enum DecodingDiagnostics {
    /// The longest body excerpt ``NetworkError/bodySnippet`` gives.
    static let snippetLength = 200

    /// ``reason(for:)`` followed by the size of `body` (`. Body: 57 bytes (not quoted)`).
    static func describe(_ error: any Error, body: Data?) -> String {
        sizing(body, after: reason(for: error))
    }

    /// `text` ended as a sentence (a full stop added unless it has one), then
    /// ` Body: N bytes (not quoted)`; `text` alone for an empty or absent body.
    static func sizing(_ body: Data?, after text: String) -> String {
        guard let count = body?.count, count > 0 else { return text }
        return NetworkError.sentence(text) + " Body: " + String(count) + (count == 1 ? " byte" : " bytes") + " (not quoted)"
    }

    /// What went wrong and at which key path (`expected Int at .items[1].id: …`) for
    /// decoding errors, and for encoding errors (``EncodingFailure/invalid(_:_:)``: named
    /// by key path and type, never by the value); the localized description of any other error.
    ///
    /// A `dataCorrupted` error is named by its key path only: Foundation's description of it
    /// quotes the value (`Cannot initialize Role from invalid String value …`,
    /// `Parsed JSON number <…> does not fit in Int`). The other kinds' descriptions name types
    /// (`Expected to decode String but found number instead`).
    static func reason(for error: any Error) -> String {
        let words: String, codingPath: [any CodingKey], detail: String
        switch error {
        case DecodingError.typeMismatch(let type, let context):
            (words, codingPath, detail) = ("expected " + name(of: type), context.codingPath, context.debugDescription)
        case DecodingError.valueNotFound(let type, let context):
            (words, codingPath, detail) = ("no value of type " + name(of: type), context.codingPath, context.debugDescription)
        case DecodingError.keyNotFound(let key, let context):
            return "missing key '" + key.stringValue + "' at " + path(context.codingPath)
        case DecodingError.dataCorrupted(let context):
            return "corrupted data at " + path(context.codingPath) + " (not JSON, or a value the type refuses)"
        case EncodingError.invalidValue(let value, let context):
            return EncodingFailure.invalid(value, context)
        default:
            return (error as NSError).localizedDescription
        }
        return words + " at " + path(codingPath) + ": " + detail
    }

    /// The name of `type`, as `String(describing:)` gives it (one call site for both
    /// cases that name a type).
    @inline(never)
    static func name(of type: Any.Type) -> String {
        String(describing: type)
    }

    /// A key path such as `.items[1].id`, or `the top level`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "the top level" }
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[" + String(index) + "]"
            } else {
                text += "." + key.stringValue
            }
        }
        return text
    }

    /// The first 200 bytes of `data` as UTF-8 text (a byte that is not UTF-8 becomes U+FFFD),
    /// with `…` when there is more; `nil` for an empty or absent body.
    static func snippet(of data: Data?) -> String? {
        guard let data, !data.isEmpty else { return nil }
        // Copied to bytes first: decoding `Data` or a slice of it inlines far more code.
        var bytes = [UInt8](repeating: 0, count: min(data.count, snippetLength))
        data.copyBytes(to: &bytes, count: bytes.count)
        let text = String(decoding: bytes, as: UTF8.self)
        return data.count > snippetLength ? text + "…" : text
    }
}
