/// Maps a JSON array element by element with a single-item mapper.
///
/// ```swift
/// let items = try ArrayResponseMapper<ItemModel>.process(json, mapper: ItemMapper.process)
/// ```
public final class ArrayResponseMapper<A: ParsedItem> {
    /// Casts `obj` to a JSON array and maps each element in order.
    ///
    /// - Throws: ``ResponseMapperError/invalid`` when `obj` is not an array, or the
    ///   first error `mapper` throws.
    @_alwaysEmitIntoClient
    public static func process(_ obj: Any?, mapper: (Any?) throws -> A) throws -> [A] {
        guard let array = obj as? [Any] else { throw ResponseMapperError.invalid }
        var items: [A] = []
        for element in array {
            items.append(try mapper(element))
        }
        return items
    }
}
