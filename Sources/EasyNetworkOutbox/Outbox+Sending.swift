#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What ``Outbox/send(_:)`` does before it writes: the entry file of the request, built
/// with the host's settings and credentials removed, and room for it.
extension Outbox {
    /// Reserves room for an entry of `size` bytes, dropping the oldest to make it when
    /// the SDK chose ``OutboxOptions/FullPolicy/dropOldest``.
    @_optimize(size)
    func makeRoom(for size: Int) throws {
        var dropped: [String] = []
        lock.lock()
        while !fits(size, maxEntries: options.maxEntries, maxBytes: options.maxBytes), options.whenFull == .dropOldest, let victim = dropOldest() {
            // Measured and removed under the lock, so that the room is there when it lets go.
            let folder = victim.dead ? deadPath : pendingPath
            shrink(self.size(victim.id, in: folder))
            remove(victim.id, in: folder)
            dropped.append(victim.id)
        }
        let fits = fits(size, maxEntries: options.maxEntries, maxBytes: options.maxBytes)
        if fits { reserve(size) }
        lock.unlock()
        for id in dropped {
            report(.dropped, id, "removed to make room (whenFull: dropOldest)")
        }
        guard fits else {
            try OutboxError.fail(.full, "the outbox holds maxEntries entries or maxBytes bytes (dead letters included)")
        }
    }

    /// The entry file of `request`, built with the host's settings, credentials removed,
    /// and the record read back from it (a request whose file would not read back, as a
    /// URL that does not parse again, is refused now rather than set aside later).
    @_optimize(size)
    func makeFile(_ request: any BaseAPIRequest) throws -> ([UInt8], EntryRecord) {
        if !request.method.sendsParametersInQuery, request.multipartBody != nil {
            try OutboxError.fail(.invalidRequest, "an outbox does not store multipart bodies; send the form with a RequestOperation")
        }
        var urlRequest: URLRequest
        do {
            urlRequest = try URLRequestBuilder(configuration: host).build(request, multipart: nil, exactTimeout: false)  // refused above
        } catch {
            try OutboxError.fail(.invalidRequest, error.errorDescription ?? "", error)
        }
        guard let url = urlRequest.url else {
            try OutboxError.fail(.invalidRequest, "the request has no URL")
        }
        // The fields never stored, and the key (stored last, under the outbox's name), taken
        // off the request: `setValue` finds a name in any case.
        let idempotencyKey = urlRequest.value(forHTTPHeaderField: options.idempotencyHeader) ?? UUID().uuidString
        urlRequest.setValue(nil, forHTTPHeaderField: options.idempotencyHeader)
        urlRequest.setValue(nil, forHTTPHeaderField: "Authorization")
        urlRequest.setValue(nil, forHTTPHeaderField: "Cookie")
        for name in options.unstoredHeaders {
            urlRequest.setValue(nil, forHTTPHeaderField: name)
        }
        var headers: [String] = []
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [String: String]() {
            Self.append(name, value, to: &headers)
        }
        Self.append(options.idempotencyHeader, idempotencyKey, to: &headers)
        lock.lock()
        let id = newName()
        lock.unlock()
        let bytes = EntryRecord.file(
            id: id, idempotencyKey: idempotencyKey, method: urlRequest.httpMethod ?? "GET", url: url,
            headers: headers, body: urlRequest.httpBody ?? Data(), createdAt: Date(),
            requiresAuthentication: request.requiresAuthentication, attempts: 0, countedAttempts: 0, notBefore: nil,
            statusCode: 0, reason: "", responseBody: Data(), endedAt: nil
        )
        guard let record = EntryRecord.decoding(bytes) else {
            try OutboxError.fail(.invalidRequest, "the request cannot be stored as it is (its URL does not read back)")
        }
        return (bytes, record)
    }

    /// Appends a header field to `headers` (names and values in turn): one place that grows the array.
    @inline(never)
    @_optimize(size)
    private static func append(_ name: String, _ value: String, to headers: inout [String]) {
        headers.append(name)
        headers.append(value)
    }
}
