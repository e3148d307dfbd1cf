import Foundation

/// The limits and delivery rules of an ``Outbox``, fixed when it is created: give the ones
/// you change to the initializer (`OutboxOptions(maxEntries: 1_000, width: 2)`). Every one
/// has a default suited to analytics or telemetry events of a few kilobytes, and the
/// initializer brings each into its range (a width of at least 1, no negative wait).
public struct OutboxOptions: Sendable {
    /// What ``Outbox/send(_:)`` does when the outbox is full.
    public struct FullPolicy: Hashable, Sendable {
        /// 0 refuse, 1 drop oldest (a number: a plain value, nothing to copy or release).
        private let number: Int

        /// Refuse the new request with ``OutboxError/Code/full`` (the default): nothing
        /// already accepted is ever dropped.
        public static let refuse = FullPolicy(number: 0)
        /// Make room by removing the oldest dead letters, then the oldest entries not being
        /// sent, each reported to ``Outbox/onProblem`` as ``OutboxError/Code/dropped``.
        public static let dropOldest = FullPolicy(number: 1)
    }

    /// The most entries on disk, dead letters included. Default 10,000.
    public let maxEntries: Int
    /// The most bytes of entry files on disk, dead letters included. Default 50 MiB.
    public let maxBytes: Int
    /// What a full outbox does with a new request. Default ``FullPolicy/refuse``.
    public let whenFull: FullPolicy
    /// How many entries are sent at once. Default 1, which delivers strictly in the order
    /// the entries were accepted; with more, they start in that order and may arrive in another.
    public let width: Int
    /// Failed attempts after which an entry becomes a dead letter. Default 25. Only attempts
    /// that may have reached the server count: an answer 408, 429 or 5xx, a timeout, a
    /// connection lost mid-request, a failed token refresh. Attempts that never left the
    /// device (offline, DNS failure, connection refused) do not, so days offline use up none.
    public let maxAttempts: Int
    /// The age after which an entry that is still not delivered becomes a dead letter
    /// instead of being sent again. Default 7 days.
    public let maxAge: TimeInterval
    /// The wait after the first failed attempt, doubled for each further one (with ±20 %
    /// jitter) up to ``maxRetryDelay``; also the wait after an attempt that was cancelled
    /// (which is no attempt, and doubles nothing). Default 1 s.
    public let retryDelay: TimeInterval
    /// The longest wait between two attempts, and the longest `Retry-After` honoured. Default 15 minutes.
    public let maxRetryDelay: TimeInterval
    /// The header that carries each entry's idempotency key. Default `Idempotency-Key`. A
    /// request that already has this header keeps its value as the entry's key.
    public let idempotencyHeader: String
    /// Headers never written to disk, besides `Authorization` and `Cookie`, which never are.
    /// Names compare case-insensitively. Default `Proxy-Authorization`, `Set-Cookie` and
    /// `X-API-Key` (with the two above, the default redaction of `LoggingInterceptor`).
    public let unstoredHeaders: Set<String>
    /// How often an outbox that has entries to deliver while another outbox holds the
    /// folder's lock tries to take it, in seconds. Default 1 s. An outbox with nothing to
    /// deliver does not try.
    public let lockRetryInterval: TimeInterval

    /// Options; every parameter has the default described on its property.
    public init(
        maxEntries: Int = 10_000,
        maxBytes: Int = 50 * 1024 * 1024,
        whenFull: FullPolicy = .refuse,
        width: Int = 1,
        maxAttempts: Int = 25,
        maxAge: TimeInterval = 7 * 24 * 60 * 60,
        retryDelay: TimeInterval = 1,
        maxRetryDelay: TimeInterval = 15 * 60,
        idempotencyHeader: String = "Idempotency-Key",
        unstoredHeaders: Set<String> = ["Proxy-Authorization", "Set-Cookie", "X-API-Key"],
        lockRetryInterval: TimeInterval = 1
    ) {
        self.maxEntries = max(1, maxEntries)
        self.maxBytes = max(1, maxBytes)
        self.whenFull = whenFull
        self.width = max(1, width)
        self.maxAttempts = max(1, maxAttempts)
        self.maxAge = max(0, maxAge)
        self.retryDelay = max(0, retryDelay)
        self.maxRetryDelay = max(0, maxRetryDelay)
        self.idempotencyHeader = idempotencyHeader
        self.unstoredHeaders = unstoredHeaders
        self.lockRetryInterval = max(0, lockRetryInterval)
    }

    /// Whether the header `name` stays off the disk.
    func isUnstored(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if lowered == "authorization" || lowered == "cookie" { return true }
        for header in unstoredHeaders where header.lowercased() == lowered {
            return true
        }
        return false
    }
}
