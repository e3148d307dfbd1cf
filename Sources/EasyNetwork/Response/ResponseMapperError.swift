import Foundation

/// Why a hand-written mapper could not build its item.
public enum ResponseMapperError: Error, Sendable, Equatable {
    /// The JSON was not of the expected shape (not an object, not an array).
    case invalid
    /// The JSON had the right shape but lacked an attribute the item needs.
    case missingAttribute
}

extension ResponseMapperError: LocalizedError {
    /// A sentence a person understands.
    public var errorDescription: String? {
        switch self {
        case .invalid: return "The response does not have the expected shape."
        case .missingAttribute: return "The response lacks an attribute the item needs."
        }
    }
}
