#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// Why a ``RequestChain`` stopped: which step (0-based) and its error.
public struct ChainError: Error, Sendable {
    /// The run's end, which has an error: a chain error is one reference (the runtime's
    /// shared value witnesses, none of its own), the same object a success carries.
    private let end: ChainEnd

    init(_ end: ChainEnd) {
        self.end = end
    }

    /// The step that failed or was cancelled, counted from 0.
    public var step: Int { end.step }
    /// What went wrong in that step: its request's error, a cancellation, or (kind
    /// `invalidRequest`) an error its builder threw.
    public var error: NetworkError {
        // (Never `nil`: a run's end has an error whenever a `ChainError` is made of it.)
        @inline(never) get { end.error ?? orchestrationError(.cancelled) }
    }

    /// Whether the chain was cancelled rather than failed.
    @_alwaysEmitIntoClient  // a forward to `error`: in the caller
    public var isCancelled: Bool { error.isCancelled }
}

extension ChainError: LocalizedError {
    /// "Step 2 of the chain failed: …".
    public var errorDescription: String? {
        let error = error
        let cancelled = error.isCancelled
        return stepSentence("Step ", step, cancelled ? " of the chain was cancelled." : " of the chain failed: ", cancelled ? nil : error)
    }
}

extension ChainError: CustomStringConvertible {
    /// The sentence of ``errorDescription``: what `print(error)` and string interpolation
    /// show (the error's storage says nothing).
    public var description: String { errorDescription ?? "" }
}

/// A ``NetworkError`` of `kind` made for this module (one call of the core's initializer,
/// whose every argument each call site would pass).
@inline(never)
func orchestrationError(_ kind: NetworkError.Kind, _ message: String? = nil, underlying: (any Error)? = nil) -> NetworkError {
    NetworkError(kind: kind, message: message, underlyingError: underlying)
}

/// `start`, the 1-based number of step `index`, `middle`, and `error`'s description (one
/// copy of the number's and the description's code for both sentences of the module).
@inline(never)
func stepSentence(_ start: String, _ index: Int, _ middle: String, _ error: (any Error)?) -> String {
    start + String(index + 1) + middle + (error?.localizedDescription ?? "")
}
