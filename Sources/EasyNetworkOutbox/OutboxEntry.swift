import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request an ``Outbox`` accepted, as stored on disk: what ``Outbox/send(_:)`` returns,
/// what ``Outbox/pendingEntries()`` lists and ``Outbox/onDelivered`` reports.
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
        var request = URLRequest(url: record.url)
        record.addHeaders(to: &request)
        return request.allHTTPHeaderFields ?? [String: String]()
    }
    /// The body.
    public var body: Data { record.body }
    /// When ``Outbox/send(_:)`` accepted it.
    public var createdAt: Date { record.createdAt }
    /// Failed attempts so far.
    public var attempts: Int { record.attempts }
}
