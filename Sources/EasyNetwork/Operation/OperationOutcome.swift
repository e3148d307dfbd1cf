import Foundation

/// The state of a ``RequestOperation`` that does not depend on its `Output`, kept under
/// the operation's lock. Not nested in the generic class, so code that is not specialized
/// for an `Output` (all of the library's) handles it without looking up type metadata.
struct OperationOutcome {
    var delivered = false
    /// Whether the operation's observers ever had one (checked without touching the array).
    var observed = false
    var failure: (@Sendable (NetworkError) -> Void)?
    var onUploadProgress: (@Sendable (Progress) -> Void)?
    /// Boxed: `RequestMetrics` holds Foundation `Date`s, whose layout is known only at
    /// run time, and would make freeing every operation look up type metadata.
    var metrics: StoredValue<RequestMetrics>?
    var uploadGate = ProgressGate()
    var uploadProgress: Progress?
}
