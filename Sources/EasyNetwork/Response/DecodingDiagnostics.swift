import Foundation

/// Words for a decoding failure: what was expected, where, and what the body held.
enum DecodingDiagnostics {
    /// The longest body excerpt an error message quotes.
    static let snippetLength = 200

    /// ``reason(for:)`` followed by a quote of `body` (`. Body: …`) when there is one.
    static func describe(_ error: any Error, body: Data?) -> String {
        quoting(body, after: reason(for: error))
    }

    /// `text` ended as a sentence (a full stop added unless it has one), then ` Body: …`
    /// quoting `body`; `text` alone for an empty or absent body.
    static func quoting(_ body: Data?, after text: String) -> String {
        let quote = quote(body)
        guard !quote.isEmpty else { return text }
        return NetworkError.sentence(text) + quote
    }

    /// What went wrong and at which key path (`expected Int at .items[1].id: …`) for
    /// decoding errors, and for encoding errors (``EncodingFailure/invalid(_:_:)``: named
    /// by key path and type, never by the value); the localized description of any other error.
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
            (words, codingPath, detail) = ("corrupted data", context.codingPath, context.debugDescription)
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

    /// ` Body: <the first 200 bytes of data as text>`, or nothing for an empty or absent body.
    static func quote(_ data: Data?) -> String {
        guard let data, !data.isEmpty else { return "" }
        // Copied to bytes first: decoding `Data` or a slice of it inlines far more code.
        var bytes = [UInt8](repeating: 0, count: min(data.count, snippetLength))
        data.copyBytes(to: &bytes, count: bytes.count)
        let text = String(decoding: bytes, as: UTF8.self)
        return " Body: " + (data.count > snippetLength ? text + "…" : text)
    }
}
