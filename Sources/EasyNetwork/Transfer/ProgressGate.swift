/// Decides which progress values are worth a callback: only forward, in steps of at
/// least half a percent, and always the final 100 %.
///
/// Emitted into its callers (a request operation's upload, `EasyNetworkDownloads`'
/// download): a few instructions each, no call.
@usableFromInline
package struct ProgressGate: Sendable {
    @usableFromInline var reported: Double

    @_alwaysEmitIntoClient
    package init() {
        reported = -1
    }

    /// Whether `fraction` should be reported; remembers it when so.
    @_alwaysEmitIntoClient
    package mutating func admit(_ fraction: Double) -> Bool {
        guard fraction >= reported + 0.005 || (fraction >= 1 && reported < 1) else { return false }
        reported = fraction
        return true
    }
}
