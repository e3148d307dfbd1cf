import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An entry whose delivery ended for good without success: the server gave a final
/// answer (any status but 2xx, 408, 429 and 5xx), or the entry ran out of attempts or
/// age (``OutboxOptions/maxAttempts``, ``OutboxOptions/maxAge``). Kept on disk until
/// ``Outbox/retryDeadLetter(_:)`` or ``Outbox/removeDeadLetter(_:)``; reported once to
/// ``Outbox/onDeadLetter``. The same value as ``OutboxEntry``, with how it ended
/// (``OutboxEntry/statusCode``, ``OutboxEntry/responseBody``, ``OutboxEntry/reason``,
/// ``OutboxEntry/failedAt``): one type fewer in your binary.
public typealias OutboxDeadLetter = OutboxEntry

/// A request an ``Outbox`` accepted, as stored on disk: what ``Outbox/send(_:)`` returns,
/// what ``Outbox/pendingEntries()`` lists and ``Outbox/onDelivered`` reports; also a dead
/// letter (``OutboxDeadLetter``), what ``Outbox/deadLetters()`` lists and
/// ``Outbox/onDeadLetter`` reports, with how it ended.
public struct OutboxEntry: Sendable, Identifiable {
    /// The stored record (immutable: a copy of the entry is one reference).
    let record: EntryRecord

    /// The entry's name in the folder: unique, and sorting the names sorts the entries
    /// oldest first.
    public var id: String { record.id }
    /// The idempotency key sent with every attempt (in ``OutboxOptions/idempotencyHeader``).
    public var idempotencyKey: String { record.idempotencyKey }
    /// The HTTP method.
    public var method: String { record.method }
    /// The URL, as built when the entry was accepted.
    public var url: URL { record.url }
    /// The headers stored (built with the host's default headers; never `Authorization`,
    /// `Cookie` or ``OutboxOptions/unstoredHeaders``), the idempotency key included.
    public var headers: [String: String] {
        // Made by the `URLRequest` the delivery sends (Foundation builds the dictionary).
        record.urlRequest(timeout: 60, defaults: nil).allHTTPHeaderFields ?? [String: String]()
    }
    /// The body.
    public var body: Data { record.body }
    /// When ``Outbox/send(_:)`` accepted it.
    public var createdAt: Date { record.createdAt }
    /// Failed attempts so far.
    public var attempts: Int { record.attempts }

    // MARK: A dead letter's end

    /// The entry as it was stored (a dead letter is its entry, with how it ended).
    @_alwaysEmitIntoClient
    public var entry: OutboxEntry { self }
    /// A dead letter's last HTTP status, `nil` when the last attempt got no answer (and for
    /// an entry that is no dead letter).
    public var statusCode: Int? { record.statusCode == 0 ? nil : record.statusCode }
    /// The body of a dead letter's last answer, at most 64 KiB of it (empty for an entry
    /// that is no dead letter).
    public var responseBody: Data { record.responseBody }
    /// Why a dead letter ended, in a sentence (the last error, or the limit it reached);
    /// empty for an entry that is no dead letter.
    public var reason: String { record.reason }
    /// When a dead letter ended (``createdAt`` for an entry that is no dead letter).
    public var failedAt: Date { record.endedAt ?? record.createdAt }
}
