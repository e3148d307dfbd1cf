#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// Why a ``RequestChain`` stopped: which step (0-based) and its error.
public struct ChainError: Error, Sendable {
    /// The step that failed or was cancelled, counted from 0.
    public let step: Int
    /// What went wrong in that step: its request's error, a cancellation, or (kind
    /// `invalidRequest`) an error its builder threw.
    public let error: NetworkError

    /// Whether the chain was cancelled rather than failed.
    public var isCancelled: Bool { error.isCancelled }
}

extension ChainError: LocalizedError {
    /// "Step 2 of the chain failed: …".
    public var errorDescription: String? {
        "Step \(step + 1) of the chain " + (error.isCancelled ? "was cancelled." : "failed: \(error.localizedDescription)")
    }
}
