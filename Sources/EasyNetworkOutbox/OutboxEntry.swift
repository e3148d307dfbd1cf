import Foundation

/// A request an ``Outbox`` accepted, as stored on disk: what ``Outbox/send(_:)`` returns,
/// what ``Outbox/pendingEntries()`` lists and ``Outbox/onDelivered`` reports.
public struct OutboxEntry: Sendable, Identifiable {
    /// The entry's name in the folder: unique, and sorting the names sorts the entries
    /// oldest first.
    public let id: String
    /// The idempotency key sent with every attempt (in ``OutboxOptions/idempotencyHeader``).
    public let idempotencyKey: String
    /// The HTTP method.
    public let method: String
    /// The URL, as built when the entry was accepted.
    public let url: URL
    /// The headers stored (built with the host's default headers; never `Authorization`,
    /// `Cookie` or ``OutboxOptions/unstoredHeaders``), the idempotency key included.
    public let headers: [String: String]
    /// The body.
    public let body: Data
    /// When ``Outbox/send(_:)`` accepted it.
    public let createdAt: Date
    /// Failed attempts so far.
    public let attempts: Int

    init(_ record: EntryRecord) {
        id = record.id
        idempotencyKey = record.idempotencyKey
        method = record.method
        url = record.url
        var headers: [String: String] = [:]
        for field in record.headers { headers[field.name] = field.value }
        self.headers = headers
        body = record.body
        createdAt = record.createdAt
        attempts = record.attempts
    }
}
