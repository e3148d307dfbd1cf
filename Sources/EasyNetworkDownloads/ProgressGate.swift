/// Decides which progress values are worth a callback: only forward, in steps of at
/// least half a percent, and always the final 100 %.
///
/// The download's (a `RequestOperation`'s upload keeps the same rule in a field of its
/// own: the core has no type for it).
struct ProgressGate: Sendable {
    private var reported: Double

    init() {
        reported = -1
    }

    /// Whether `fraction` should be reported; remembers it when so.
    mutating func admit(_ fraction: Double) -> Bool {
        guard fraction >= reported + 0.005 || (fraction >= 1 && reported < 1) else { return false }
        reported = fraction
        return true
    }
}
