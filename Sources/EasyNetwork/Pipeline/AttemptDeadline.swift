import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The two limits of one attempt, as Apple's URLSession has them: `idle` (no byte sent
/// or received for that long, `timeoutIntervalForRequest`) and an optional `total`
/// (however steadily bytes move, `timeoutIntervalForResource`).
///
/// Both are exact and may be sub-second on every platform (``AttemptTimer`` keeps them).
struct AttemptDeadline: Sendable {
    /// Seconds without a byte moving that end the attempt.
    let idle: TimeInterval
    /// Seconds after its start that end the attempt, or `nil` for no such limit.
    let total: TimeInterval?

    /// When the attempt that started at `start` and last moved bytes at `lastActivity`
    /// expires.
    func expiry(start: DispatchTime, lastActivity: DispatchTime) -> DispatchTime {
        let idleEnd = lastActivity + Self.clamped(idle)
        guard let total else { return idleEnd }
        return min(idleEnd, start + Self.clamped(total))
    }

    /// When the attempt that started at `start` passes its total limit, or `nil` for none
    /// (the clock of an attempt whose session keeps the idle limit).
    func totalExpiry(start: DispatchTime) -> DispatchTime? {
        total.map { start + Self.clamped($0) }
    }

    /// The error of an attempt that expired: the total limit when it came first, else
    /// the idle one. Both are `URLError.timedOut` (``NetworkError/isTimeout``).
    func error(start: DispatchTime, lastActivity: DispatchTime) -> URLError {
        if let total, start + Self.clamped(total) <= lastActivity + Self.clamped(idle) {
            return totalError(total)
        }
        return idleError
    }

    /// The error of an attempt that passed its total limit.
    func totalError(_ total: TimeInterval) -> URLError {
        Self.timedOut("The request exceeded its total timeout of ", total)
    }

    /// The error of an attempt that no byte moved for `idle` seconds (also when the
    /// session kept that limit and reported it).
    var idleError: URLError {
        Self.timedOut("No byte was sent or received for ", idle)
    }

    /// `URLError.timedOut` saying `words`, then `seconds` and " s." (one copy of the
    /// error's making for both limits).
    @inline(never)
    private static func timedOut(_ words: String, _ seconds: TimeInterval) -> URLError {
        URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: words + String(seconds) + " s."])
    }

    /// Seconds as a `DispatchTime` offset: negative and NaN as 0, huge as ~100 years.
    private static func clamped(_ seconds: TimeInterval) -> Double {
        guard seconds > 0 else { return 0 }
        return min(seconds, 3_153_600_000)
    }
}
