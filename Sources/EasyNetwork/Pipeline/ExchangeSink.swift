import Dispatch

/// The typed end of a ``RequestExchange``, which itself knows no output type: the
/// caller's mapping, the value it made and the completion (see ``TypedSink``).
///
/// The value may not be `Sendable` (the seed's `Any?`): it is written and taken only
/// under the lock the exchange passes in, which orders it between the queues.
@usableFromInline  // named by RequestPlugIn, which the features emitted into products name
package protocol ExchangeSink: AnyObject, Sendable {
    /// Runs the caller's mapping on a validated response and keeps the value (under
    /// `lock`); returns the error when the mapping threw.
    func map(_ response: NetworkResponse, lock: Lock) -> NetworkError?
    /// Whether the mapping is the library's own (the seed's JSON), so a small body may
    /// be mapped on the session's delegate queue instead of hopping to ``ResponseStage``.
    var mapsInline: Bool { get }
    /// Whether a success may be delivered where it became known instead of on the host's
    /// callback queue: nothing of the caller's runs there (an awaited request, whose task
    /// resumes on its own executor anyway).
    var deliversInPlace: Bool { get }
    /// Maps a stored response and hands the value to the caller on `queue`, when the caller
    /// wants a value before the network's (``CachePolicy/cacheThenNetwork``); a stored
    /// response that does not map is skipped.
    func deliverProvisional(_ response: NetworkResponse, on queue: DispatchQueue, lock: Lock)
    /// Calls the completion (on the callback queue) with the kept value, or `error`.
    func deliver(_ error: NetworkError?, metrics: RequestMetrics, lock: Lock)
}

extension ExchangeSink {
    /// A caller's mapping by default: it runs on ``ResponseStage``.
    var mapsInline: Bool { false }
    /// A caller's completion by default: it runs on the callback queue.
    package var deliversInPlace: Bool { false }
}

extension NetworkError {
    /// What a sink delivers for a success whose value was never kept (made in one place).
    @inline(never)
    static func unmapped() -> NetworkError {
        library(.decoding, "the response was not mapped", url: nil)
    }
}
