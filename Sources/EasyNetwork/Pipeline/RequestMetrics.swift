import Foundation

/// Measurements of one request, on every platform (Linux never delivers
/// `URLSessionTaskMetrics`, so EasyNetwork takes its own).
public struct RequestMetrics: Sendable, Equatable {
    /// When the request was handed over: the operation was added to a queue, or
    /// `perform`/`request` was called for a bare service.
    public let queuedAt: Date
    /// When the first attempt began to be sent.
    public let startedAt: Date
    /// When the last response began to arrive; `nil` when no response arrived (or it
    /// came from the cache). Apple platforms take it from the task's metrics. Linux has
    /// none, so EasyNetwork notes the moment the response head or first byte reached the
    /// session's delegate, for a request that runs delegate-driven; a request that needs
    /// no byte events runs there on a task with a completion handler, which tells nobody
    /// when its response began, so its `firstByteAt` is `nil` on Linux: one whose idle
    /// `timeout` is a whole number of seconds (the default 60 s is), that sends no
    /// multipart body and whose upload nobody watches. A fractional `timeout` (say
    /// `30.5`) keeps a request delegate-driven, and measured, on Linux too.
    public let firstByteAt: Date?
    /// When the result was known.
    public let endedAt: Date
    /// Bytes of request body sent, over all attempts.
    public let bytesSent: Int
    /// Bytes of response body received, over all attempts.
    public let bytesReceived: Int
    /// How many times the request was sent (retries and replays after a token
    /// refresh included); 0 when it failed before sending.
    public let attempts: Int

    /// From start to end.
    @_alwaysEmitIntoClient
    public var duration: TimeInterval { endedAt.timeIntervalSince(startedAt) }
    /// From being handed over to the first attempt.
    @_alwaysEmitIntoClient
    public var queuedDuration: TimeInterval { startedAt.timeIntervalSince(queuedAt) }
}
