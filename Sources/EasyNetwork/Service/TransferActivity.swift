/// Told each time a transfer moves bytes (the response head, a piece of the body,
/// a piece of the request body sent), on the session's delegate queue. The idle
/// timeout of a request starts over from the last such moment.
///
/// Conformers keep it cheap: a timestamp under a lock, never a timer per call.
@usableFromInline  // named by RequestPlugIn, which the features emitted into products name
package protocol TransferActivity: AnyObject, Sendable {
    /// Bytes moved just now.
    func transferMoved()
}
