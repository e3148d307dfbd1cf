import Foundation

/// Words for a decoding failure: what was expected, where, and what the body held.
enum DecodingDiagnostics {
    /// The longest body excerpt an error message quotes.
    static let snippetLength = 200

    /// ``reason(for:)`` followed by a quote of `body` (` Body: …`) when there is one.
    static func describe(_ error: any Error, body: Data?) -> String {
        reason(for: error) + quote(body)
    }

    /// What went wrong and at which key path, for decoding and encoding errors; the
    /// localized description of any other error.
    static func reason(for error: any Error) -> String {
        if let decodingError = error as? DecodingError {
            switch decodingError {
            case .typeMismatch(let type, let context):
                return "expected \(type)" + at(context.codingPath, context.debugDescription)
            case .valueNotFound(let type, let context):
                return "no value of type \(type)" + at(context.codingPath, context.debugDescription)
            case .keyNotFound(let key, let context):
                return "missing key '\(key.stringValue)' at " + path(context.codingPath)
            case .dataCorrupted(let context):
                return "corrupted data" + at(context.codingPath, context.debugDescription)
            @unknown default:
                return String(describing: decodingError)
            }
        }
        if case EncodingError.invalidValue(let value, let context) = error {
            return "invalid value \(value)" + at(context.codingPath, context.debugDescription)
        }
        return (error as NSError).localizedDescription
    }

    /// ` at <path>: <detail>`.
    private static func at(_ codingPath: [any CodingKey], _ detail: String) -> String {
        " at " + path(codingPath) + ": " + detail
    }

    /// A key path such as `.items[1].id`, or `the top level`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "the top level" }
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += "." + key.stringValue
            }
        }
        return text
    }

    /// ` Body: <the first 200 bytes of data as text>`, or nothing for an empty or absent body.
    static func quote(_ data: Data?) -> String {
        guard let data, !data.isEmpty else { return "" }
        let text = String(decoding: data.prefix(snippetLength), as: UTF8.self)
        return " Body: " + (data.count > snippetLength ? text + "…" : text)
    }
}
