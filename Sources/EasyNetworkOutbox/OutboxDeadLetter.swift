import Foundation

/// An entry whose delivery ended for good without success: the server gave a final
/// answer (any status but 2xx, 408, 429 and 5xx), or the entry ran out of attempts or
/// age (``OutboxOptions/maxAttempts``, ``OutboxOptions/maxAge``). Kept on disk until
/// ``Outbox/retryDeadLetter(_:)`` or ``Outbox/removeDeadLetter(_:)``; reported once to
/// ``Outbox/onDeadLetter``.
public struct OutboxDeadLetter: Sendable, Identifiable {
    /// The entry as it was stored.
    public let entry: OutboxEntry
    /// The last HTTP status, `nil` when the last attempt got no answer.
    public let statusCode: Int?
    /// The body of the last answer, at most 64 KiB of it.
    public let responseBody: Data
    /// Why it ended, in a sentence (the last error, or the limit it reached).
    public let reason: String
    /// When it ended.
    public let failedAt: Date

    /// The entry's id.
    public var id: String { entry.id }

    init(_ record: EntryRecord) {
        entry = OutboxEntry(record)
        statusCode = record.statusCode
        responseBody = record.responseBody
        reason = record.reason
        failedAt = record.endedAt ?? record.createdAt
    }
}
