import Foundation

/// Why a hand-written mapper could not build its item.
///
/// A struct of one byte with a static member per reason, not an enum: an enum carries value
/// witnesses and a `Hashable` conformance in every program. Compare with `==`
/// (`error as? ResponseMapperError == .invalid`).
public struct ResponseMapperError: Error, Sendable, Equatable {
    /// 0 `invalid`, 1 `missingAttribute`.
    @usableFromInline let code: UInt8

    /// The reason numbered `code`.
    @_alwaysEmitIntoClient
    init(code: UInt8) {
        self.code = code
    }

    /// Whether `a` and `b` are the same reason (written out and emitted into the caller: no
    /// derived function in the core).
    @_alwaysEmitIntoClient
    public static func == (a: ResponseMapperError, b: ResponseMapperError) -> Bool {
        a.code == b.code
    }

    /// The JSON was not of the expected shape (not an object, not an array).
    @_alwaysEmitIntoClient public static var invalid: ResponseMapperError { ResponseMapperError(code: 0) }
    /// The JSON had the right shape but lacked an attribute the item needs.
    @_alwaysEmitIntoClient public static var missingAttribute: ResponseMapperError { ResponseMapperError(code: 1) }
}

extension ResponseMapperError: LocalizedError {
    /// A sentence a person understands.
    @_alwaysEmitIntoClient  // in its witness: no function of its own
    public var errorDescription: String? {
        code == 0 ? "The response does not have the expected shape." : "The response lacks an attribute the item needs."
    }
}
