/// An operation whose failure the generic `NetworkQueue.run(_:)` rethrows (it waits
/// for any `Operation` to finish, and knows no result type).
@usableFromInline  // named by `NetworkQueue.check(_:)`, emitted into its callers
package protocol FailureReporting: AnyObject {
    /// The failure the operation ended with, `nil` while it runs or when it succeeded.
    var failure: NetworkError? { get }
}
