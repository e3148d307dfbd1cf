/// A type that turns a decoded JSON response (`Any?`) into an item.
///
/// ```swift
/// final class SignInResponseMapper: ResponseMapper<SignInItem>, ResponseMapperProtocol {
///     static func process(_ obj: Any?) throws -> SignInItem {
///         try process(obj, parse: { json in ... })
///     }
/// }
/// ```
public protocol ResponseMapperProtocol {
    /// What the mapper produces.
    associatedtype Item
    /// Maps the decoded JSON into an ``Item``; throws when it cannot.
    static func process(_ obj: Any?) throws -> Item
}
