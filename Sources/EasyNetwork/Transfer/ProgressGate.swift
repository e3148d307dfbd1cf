/// Decides which progress values are worth a callback: only forward, in steps of at
/// least half a percent, and always the final 100 %.
///
/// Used by a request operation's upload and `EasyNetworkDownloads`' download. Plain
/// `package` functions over a private field: emitting them into callers would need the
/// field visible to them, which costs a getter, a setter and a `modify` (4 functions).
package struct ProgressGate: Sendable {
    private var reported: Double

    package init() {
        reported = -1
    }

    /// Whether `fraction` should be reported; remembers it when so.
    package mutating func admit(_ fraction: Double) -> Bool {
        guard fraction >= reported + 0.005 || (fraction >= 1 && reported < 1) else { return false }
        reported = fraction
        return true
    }
}
