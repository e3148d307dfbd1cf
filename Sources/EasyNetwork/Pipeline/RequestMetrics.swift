import Foundation

/// Measurements of one request, on every platform (Linux never delivers
/// `URLSessionTaskMetrics`, so EasyNetwork takes its own).
public struct RequestMetrics: Sendable, Equatable {
    // One stored tuple, not seven properties: one getter in the core, not seven (the
    // properties below are emitted into their callers; the pipeline never reads them).
    @usableFromInline
    let values: (queuedAt: Date, startedAt: Date, firstByteAt: Date?, endedAt: Date, bytesSent: Int, bytesReceived: Int, attempts: Int)

    /// When the request was handed over: the operation was added to a queue, or
    /// `perform`/`request` was called for a bare service.
    @_alwaysEmitIntoClient
    public var queuedAt: Date { values.queuedAt }
    /// When the first attempt began to be sent.
    @_alwaysEmitIntoClient
    public var startedAt: Date { values.startedAt }
    /// When the last response began to arrive; `nil` when no response arrived (or it
    /// came from the cache). Apple platforms take it from the task's metrics. Linux has
    /// none, so EasyNetwork notes the moment the response head or first byte reached the
    /// session's delegate, for a request that runs delegate-driven; a request that needs
    /// no byte events runs there on a task with a completion handler, which tells nobody
    /// when its response began, so its `firstByteAt` is `nil` on Linux: one whose idle
    /// `timeout` is a whole number of seconds (the default 60 s is), that sends no
    /// multipart body and whose upload nobody watches. A fractional `timeout` (say
    /// `30.5`) keeps a request delegate-driven, and measured, on Linux too.
    @_alwaysEmitIntoClient
    public var firstByteAt: Date? { values.firstByteAt }
    /// When the result was known.
    @_alwaysEmitIntoClient
    public var endedAt: Date { values.endedAt }
    /// Bytes of request body sent, over all attempts.
    @_alwaysEmitIntoClient
    public var bytesSent: Int { values.bytesSent }
    /// Bytes of response body received, over all attempts.
    @_alwaysEmitIntoClient
    public var bytesReceived: Int { values.bytesReceived }
    /// How many times the request was sent (retries and replays after a token
    /// refresh included); 0 when it failed before sending.
    @_alwaysEmitIntoClient
    public var attempts: Int { values.attempts }

    /// From start to end.
    @_alwaysEmitIntoClient
    public var duration: TimeInterval { endedAt.timeIntervalSince(startedAt) }
    /// From being handed over to the first attempt.
    @_alwaysEmitIntoClient
    public var queuedDuration: TimeInterval { startedAt.timeIntervalSince(queuedAt) }

    init(queuedAt: Date, startedAt: Date, firstByteAt: Date?, endedAt: Date, bytesSent: Int, bytesReceived: Int, attempts: Int) {
        values = (queuedAt, startedAt, firstByteAt, endedAt, bytesSent, bytesReceived, attempts)
    }

    /// Whether every measurement of `lhs` equals that of `rhs`.
    public static func == (lhs: RequestMetrics, rhs: RequestMetrics) -> Bool {
        let (l, r) = (lhs.values, rhs.values)
        return l.queuedAt == r.queuedAt && l.startedAt == r.startedAt && l.firstByteAt == r.firstByteAt && l.endedAt == r.endedAt
            && l.bytesSent == r.bytesSent && l.bytesReceived == r.bytesReceived && l.attempts == r.attempts
    }
}
