import Foundation

/// The limits and delivery rules of an ``Outbox``, fixed when it is created: give the ones
/// you change to the initializer (`OutboxOptions(maxEntries: 1_000, width: 2)`). Every one
/// has a default suited to analytics or telemetry events of a few kilobytes, and the
/// initializer brings each into its range (a width of at least 1, no negative wait).
public struct OutboxOptions: Sendable {
    /// What ``Outbox/send(_:)`` does when the outbox is full.
    public struct FullPolicy: Hashable, Sendable {
        /// 0 refuse, 1 drop oldest (a number: a plain value, nothing to copy or release).
        @usableFromInline let number: Int

        @usableFromInline
        init(number: Int) {
            self.number = number
        }

        /// Refuse the new request with ``OutboxError/Code/full`` (the default): nothing
        /// already accepted is ever dropped.
        @_alwaysEmitIntoClient
        public static var refuse: FullPolicy { FullPolicy(number: 0) }
        /// Make room by removing the oldest dead letters, then the oldest entries not being
        /// sent, each reported to ``Outbox/onProblem`` as ``OutboxError/Code/dropped``.
        @_alwaysEmitIntoClient
        public static var dropOldest: FullPolicy { FullPolicy(number: 1) }
    }

    /// The most entries on disk, dead letters included. Default 10,000.
    @_alwaysEmitIntoClient
    public var maxEntries: Int { storage.values.maxEntries }
    /// The most bytes of entry files on disk, dead letters included. Default 50 MiB.
    @_alwaysEmitIntoClient
    public var maxBytes: Int { storage.values.maxBytes }
    /// What a full outbox does with a new request. Default ``FullPolicy/refuse``.
    @_alwaysEmitIntoClient
    public var whenFull: FullPolicy { storage.values.whenFull }
    /// How many entries are sent at once. Default 1, which delivers strictly in the order
    /// the entries were accepted; with more, they start in that order and may arrive in another.
    @_alwaysEmitIntoClient
    public var width: Int { storage.values.width }
    /// Failed attempts after which an entry becomes a dead letter. Default 25. Only attempts
    /// that may have reached the server count: an answer 408, 429 or 5xx, a timeout, a
    /// connection lost mid-request, a failed token refresh. Attempts that never left the
    /// device (offline, DNS failure, connection refused) do not, so days offline use up none.
    @_alwaysEmitIntoClient
    public var maxAttempts: Int { storage.values.maxAttempts }
    /// The age after which an entry that is still not delivered becomes a dead letter
    /// instead of being sent again. Default 7 days.
    @_alwaysEmitIntoClient
    public var maxAge: TimeInterval { storage.values.maxAge }
    /// The wait after the first failed attempt, doubled for each further one (with ±20 %
    /// jitter) up to ``maxRetryDelay``; also the wait after an attempt that was cancelled
    /// (which is no attempt, and doubles nothing). Default 1 s.
    @_alwaysEmitIntoClient
    public var retryDelay: TimeInterval { storage.values.retryDelay }
    /// The longest wait between two attempts, and the longest `Retry-After` honoured. Default 15 minutes.
    @_alwaysEmitIntoClient
    public var maxRetryDelay: TimeInterval { storage.values.maxRetryDelay }
    /// The header that carries each entry's idempotency key. Default `Idempotency-Key`. A
    /// request that already has this header keeps its value as the entry's key.
    @_alwaysEmitIntoClient
    public var idempotencyHeader: String { storage.values.idempotencyHeader }
    /// Headers never written to disk, besides `Authorization` and `Cookie`, which never are.
    /// Names compare case-insensitively. Default `Proxy-Authorization`, `Set-Cookie` and
    /// `X-API-Key` (with the two above, the default redaction of `LoggingInterceptor`).
    @_alwaysEmitIntoClient
    public var unstoredHeaders: Set<String> { storage.values.unstoredHeaders }
    /// How often an outbox that has entries to deliver while another outbox holds the
    /// folder's lock tries to take it, in seconds. Default 1 s. An outbox with nothing to
    /// deliver does not try.
    @_alwaysEmitIntoClient
    public var lockRetryInterval: TimeInterval { storage.values.lockRetryInterval }

    /// The eleven values, in the order of the initializer's parameters.
    @usableFromInline
    typealias Values = (
        maxEntries: Int,
        maxBytes: Int,
        whenFull: FullPolicy,
        width: Int,
        maxAttempts: Int,
        maxAge: TimeInterval,
        retryDelay: TimeInterval,
        maxRetryDelay: TimeInterval,
        idempotencyHeader: String,
        unstoredHeaders: Set<String>,
        lockRetryInterval: TimeInterval
    )

    /// The values, in one object of constants: a copy of the options is one reference (the
    /// runtime's shared value witnesses, none of the options' own), and the properties
    /// above read them where they are used (no getter each in the module).
    @usableFromInline
    final class Storage: Sendable {
        @usableFromInline
        let values: Values

        @_optimize(size)
        init(_ values: Values) {
            self.values = values
        }
    }

    @usableFromInline
    let storage: Storage

    /// Options; every parameter has the default described on its property.
    @_optimize(size)
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
        storage = Storage((
            max(1, maxEntries),
            max(1, maxBytes),
            whenFull,
            max(1, width),
            max(1, maxAttempts),
            max(0, maxAge),
            max(0, retryDelay),
            max(0, maxRetryDelay),
            idempotencyHeader,
            unstoredHeaders,
            max(0, lockRetryInterval)
        ))
    }
}
