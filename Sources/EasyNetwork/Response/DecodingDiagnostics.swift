import Foundation

/// Words for a decoding failure: what was expected, where, and what the body held.
enum DecodingDiagnostics {
    /// The longest body excerpt an error message quotes.
    static let snippetLength = 200

    static func describe(_ error: any Error, body: Data?) -> String {
        var text = reason(for: error)
        if let body, let snippet = snippet(of: body) {
            text += " Body: \(snippet)"
        }
        return text
    }

    static func reason(for error: any Error) -> String {
        if let decodingError = error as? DecodingError {
            switch decodingError {
            case .typeMismatch(let type, let context):
                return "expected \(type) at \(path(context.codingPath)): \(context.debugDescription)"
            case .valueNotFound(let type, let context):
                return "no value of type \(type) at \(path(context.codingPath)): \(context.debugDescription)"
            case .keyNotFound(let key, let context):
                return "missing key '\(key.stringValue)' at \(path(context.codingPath))"
            case .dataCorrupted(let context):
                return "corrupted data at \(path(context.codingPath)): \(context.debugDescription)"
            @unknown default:
                return String(describing: decodingError)
            }
        }
        if let encodingError = error as? EncodingError {
            switch encodingError {
            case .invalidValue(let value, let context):
                return "invalid value \(value) at \(path(context.codingPath)): \(context.debugDescription)"
            @unknown default:
                return String(describing: encodingError)
            }
        }
        if let mapperError = error as? ResponseMapperError {
            return mapperError.localizedDescription
        }
        return (error as NSError).localizedDescription
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "the top level" }
        return codingPath.map { key in
            key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
        }.joined()
    }

    static func snippet(of data: Data) -> String? {
        guard !data.isEmpty else { return nil }
        let prefix = data.prefix(snippetLength)
        let text = String(decoding: prefix, as: UTF8.self)
        return data.count > snippetLength ? text + "…" : text
    }
}
