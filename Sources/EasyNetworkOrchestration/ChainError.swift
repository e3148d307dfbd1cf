#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// Why a ``RequestChain`` stopped: which step (0-based) and its error.
public struct ChainError: Error, Sendable {
    /// The fields, in one immutable object: an error is one reference (the runtime's
    /// shared value witnesses, none of its own).
    private final class Fields: Sendable {
        let step: Int
        let error: NetworkError

        init(step: Int, error: NetworkError) {
            self.step = step
            self.error = error
        }
    }

    private let fields: Fields

    init(step: Int, error: NetworkError) {
        fields = Fields(step: step, error: error)
    }

    /// The step that failed or was cancelled, counted from 0.
    public var step: Int { fields.step }
    /// What went wrong in that step: its request's error, a cancellation, or (kind
    /// `invalidRequest`) an error its builder threw.
    public var error: NetworkError { fields.error }

    /// Whether the chain was cancelled rather than failed.
    public var isCancelled: Bool { error.isCancelled }
}

extension ChainError: LocalizedError {
    /// "Step 2 of the chain failed: …".
    public var errorDescription: String? {
        "Step \(step + 1) of the chain " + (error.isCancelled ? "was cancelled." : "failed: \(error.localizedDescription)")
    }
}
