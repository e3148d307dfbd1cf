import Foundation

/// The JSON body of a request: its `params` (by `JSONSerialization`) or its
/// `encodableBody` (by the host's `JSONEncoder`), or an `.encoding` ``NetworkError`` naming
/// the key path and the type of the value that cannot be written, never the value itself.
///
/// `params` are checked before Foundation sees them, by ``ParameterWalker`` (JSON's rules,
/// at most 512 levels), and serialized on ``LargeStack``'s thread when deeper than
/// ``LargeStack/inlineDepth``. An encodable body is encoded on ``LargeStack``'s thread
/// (`JSONEncoder` recurses through the whole value before its writer refuses more than 512
/// levels), with a date strategy that refuses a `Date` that is NaN or infinite.
enum JSONBody {
    /// JSON for `params`, keys sorted.
    static func of(_ params: [String: Any], url: URL) -> Result<Data, NetworkError> {
        var leaves: [(name: String, value: String)] = []
        let walked = ParameterWalker.walk(params, json: true, naming: ParameterWalker.unnamed, lenient: false, url: url, into: &leaves)
        if let failure = walked.failure { return .failure(failure) }
        return walked.deepest > LargeStack.inlineDepth ? LargeStack.run(LargeStack.Job { serialize(params, url: url) }) : serialize(params, url: url)
    }

    /// `params`, checked, through `JSONSerialization`, which must never meet a value it
    /// cannot write (that raises an exception on Apple platforms).
    private static func serialize(_ params: [String: Any], url: URL) -> Result<Data, NetworkError> {
        // The walker's rules are stricter than Foundation's; this is the last guard.
        var failure: (any Error)?
        if JSONSerialization.isValidJSONObject(params) {
            do {
                return .success(try JSONSerialization.data(withJSONObject: params, options: JSONOptions.sortedKeys))
            } catch {
                failure = error
            }
        }
        // One error for both refusals (the first has no error of Foundation's).
        let message = failure?.localizedDescription ?? "the parameters hold a value JSON cannot represent"
        return .failure(NetworkError(kind: .encoding, message: message, url: url, underlyingError: failure))
    }

    /// `value` encoded by `encoder`.
    static func of(_ value: any Encodable, encoder: JSONEncoder, url: URL) -> Result<Data, NetworkError> {
        let checked = checkingDates(encoder)
        return LargeStack.run(LargeStack.Job { encode(value, encoder: checked, url: url) })
    }

    /// `encoder`, or, for the ISO 8601 date strategy, a copy that first refuses a date that
    /// is NaN or infinite: `JSONEncoder` writes one as a made-up date
    /// (`-4712-01-01T12:00:00Z`). The strategies that write a number need no check
    /// (`JSONEncoder` refuses a number that is not finite); a custom one, or a formatter
    /// (`.custom` underneath on Linux), is the host's own.
    static func checkingDates(_ encoder: JSONEncoder) -> JSONEncoder {
        guard case .iso8601 = encoder.dateEncodingStrategy else { return encoder }
        let copy = JSONEncoder()
        copy.outputFormatting = encoder.outputFormatting
        copy.dataEncodingStrategy = encoder.dataEncodingStrategy
        copy.nonConformingFloatEncodingStrategy = encoder.nonConformingFloatEncodingStrategy
        copy.keyEncodingStrategy = encoder.keyEncodingStrategy
        copy.userInfo = encoder.userInfo
        copy.dateEncodingStrategy = .custom { date, dateEncoder in
            guard date.timeIntervalSinceReferenceDate.isFinite else {
                throw EncodingError.invalidValue(date, EncodingError.Context(
                    codingPath: dateEncoder.codingPath, debugDescription: "The date is not finite (NaN or infinity)."
                ))
            }
            // JSONEncoder's own form: internet date-time, UTC.
            var container = dateEncoder.singleValueContainer()
            try container.encode(ISO8601DateFormatter().string(from: date))
        }
        return copy
    }

    /// `value` through `encoder`, its errors named by key path and type
    /// (``DecodingDiagnostics/reason(for:)``).
    @inline(__always)  // one caller
    private static func encode(_ value: any Encodable, encoder: JSONEncoder, url: URL) -> Result<Data, NetworkError> {
        do {
            return .success(try encoder.encode(value))
        } catch {
            let message = "cannot encode " + DecodingDiagnostics.name(of: type(of: value)) + ": " + DecodingDiagnostics.reason(for: error)
            return .failure(NetworkError(kind: .encoding, message: message, url: url, underlyingError: error))
        }
    }
}
