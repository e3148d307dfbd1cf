/// The base of hand-written mappers for one JSON object.
///
/// Subclass it together with ``ResponseMapperProtocol`` and call
/// ``process(_:parse:)`` from your `process(_:)`.
open class ResponseMapper<A: ParsedItem> {
    /// Creates a mapper. Mappers are used through their static methods.
    public init() {}

    /// Casts `obj` to a JSON object and hands it to `parse`.
    ///
    /// - Throws: ``ResponseMapperError/invalid`` when `obj` is not a JSON object,
    ///   ``ResponseMapperError/missingAttribute`` when `parse` returns `nil`.
    @_alwaysEmitIntoClient  // called by the app's mapper, never by the pipeline
    public static func process(_ obj: Any?, parse: ([String: Any]) throws -> A?) throws -> A {
        guard let json = obj as? [String: Any] else { throw ResponseMapperError.invalid }
        guard let item = try parse(json) else { throw ResponseMapperError.missingAttribute }
        return item
    }
}
