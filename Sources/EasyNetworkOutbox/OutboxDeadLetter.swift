import Foundation

/// An entry whose delivery ended for good without success: the server gave a final
/// answer (any status but 2xx, 408, 429 and 5xx), or the entry ran out of attempts or
/// age (``OutboxOptions/maxAttempts``, ``OutboxOptions/maxAge``). Kept on disk until
/// ``Outbox/retryDeadLetter(_:)`` or ``Outbox/removeDeadLetter(_:)``; reported once to
/// ``Outbox/onDeadLetter``.
public struct OutboxDeadLetter: Sendable, Identifiable {
    /// The stored record, with how it ended.
    let record: EntryRecord

    /// The entry as it was stored.
    public var entry: OutboxEntry { OutboxEntry(record: record) }
    /// The last HTTP status, `nil` when the last attempt got no answer.
    public var statusCode: Int? { record.statusCode == 0 ? nil : record.statusCode }
    /// The body of the last answer, at most 64 KiB of it.
    public var responseBody: Data { record.responseBody }
    /// Why it ended, in a sentence (the last error, or the limit it reached).
    public var reason: String { record.reason }
    /// When it ended.
    public var failedAt: Date { record.endedAt ?? record.createdAt }
    /// The entry's id.
    public var id: String { record.id }
}
