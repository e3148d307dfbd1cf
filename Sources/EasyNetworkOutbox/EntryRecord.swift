import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One entry as it lives in its file: the request as built (minus credentials), its
/// idempotency key, its delivery history and, for a dead letter, how it ended.
///
/// A class of constants, so that a copy is one reference (``OutboxEntry`` and
/// ``OutboxDeadLetter`` wrap one), made only from a file's bytes; a change is a new file
/// (``encoded(attempts:countedAttempts:notBefore:createdAt:statusCode:reason:responseBody:endedAt:)``).
///
/// The file is `magic (4) | version (1) | 3 zero bytes | payload length (4) | CRC-32 of
/// the payload (4) | payload`, integers little-endian; the payload is the fields below in
/// order, strings and bytes with a 4-byte length, headers as a count and name/value pairs,
/// dates as the bits of their seconds since 1970 (0 for none). A file that is short, long,
/// of another version or whose checksum does not match is corrupt: it is set aside,
/// never guessed at.
final class EntryRecord: Sendable {
    /// The file name without extension: a time-ordered, unique name (oldest sorts first).
    let id: String
    let idempotencyKey: String
    let method: String
    let url: URL
    /// The header fields stored, credentials removed, the idempotency key included: names
    /// and values in turn (`[name, value, name, value, …]`), as they go on a `URLRequest`.
    let headers: [String]
    let body: Data
    let createdAt: Date
    /// Whether the request wanted the host's token (`BaseAPIRequest.requiresAuthentication`).
    let requiresAuthentication: Bool
    /// Failed attempts so far, for the backoff.
    let attempts: Int
    /// Failed attempts that count against ``OutboxOptions/maxAttempts``.
    let countedAttempts: Int
    /// Not to be sent before this time (a backoff, a `Retry-After`).
    let notBefore: Date?
    /// A dead letter's last HTTP status (0 for none), reason, response body (cut) and end.
    let statusCode: Int
    let reason: String
    let responseBody: Data
    let endedAt: Date?

    /// The fields `reader` reads, in the file's order, straight into the record; `nil`
    /// when the file is not whole and intact. (Made only by ``decoding(_:)``: a record is
    /// always what a file says.)
    @_optimize(size)
    private init?(reading reader: inout EntryReader) {
        id = reader.string()
        idempotencyKey = reader.string()
        method = reader.string()
        guard let url = URL(string: reader.string()) else { return nil }
        self.url = url
        var headers: [String] = []
        for _ in 0..<2 * reader.count() {
            headers.append(reader.string())
        }
        self.headers = headers
        body = reader.data()
        createdAt = reader.date() ?? Date(timeIntervalSince1970: 0)
        attempts = reader.u32()
        countedAttempts = reader.u32()
        notBefore = reader.date()
        requiresAuthentication = reader.byte() != 0
        statusCode = reader.u32()
        reason = reader.string()
        responseBody = reader.data()
        endedAt = reader.date()
        guard reader.isWhole else { return nil }
    }

    /// The file of the same request with another history (and, for a dead letter, how it
    /// ended); `createdAt` `nil` keeps the record's.
    @_optimize(size)
    func encoded(
        attempts: Int, countedAttempts: Int, notBefore: Date?, createdAt: Date?,
        statusCode: Int, reason: String, responseBody: Data, endedAt: Date?
    ) -> [UInt8] {
        Self.file(
            id: id, idempotencyKey: idempotencyKey, method: method, url: url, headers: headers, body: body,
            createdAt: createdAt ?? self.createdAt, requiresAuthentication: requiresAuthentication, attempts: attempts,
            countedAttempts: countedAttempts, notBefore: notBefore, statusCode: statusCode, reason: reason,
            responseBody: responseBody, endedAt: endedAt
        )
    }

    static let headerSize = 16

    /// The stored request: method, URL, headers and body, with `timeout` as URLSession's
    /// backstop (an attempt's exchange keeps the exact deadline), on top of `defaults` (a
    /// stored header wins: `setValue` replaces a field of any case).
    @_optimize(size)
    func urlRequest(timeout: TimeInterval, defaults: [String: String]?) -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        request.allHTTPHeaderFields = defaults
        var index = 0
        while index + 1 < headers.count {
            request.setValue(headers[index + 1], forHTTPHeaderField: headers[index])
            index += 2
        }
        if !body.isEmpty {
            request.httpBody = body
        }
        return request
    }

    /// The bytes of the entry file of these fields (a record is read back from them with
    /// ``decoding(_:)``; one place writes the format, one reads it).
    @_optimize(size)
    static func file(
        id: String, idempotencyKey: String, method: String, url: URL, headers: [String], body: Data,
        createdAt: Date, requiresAuthentication: Bool, attempts: Int, countedAttempts: Int, notBefore: Date?,
        statusCode: Int, reason: String, responseBody: Data, endedAt: Date?
    ) -> [UInt8] {
        var writer = EntryWriter()
        writer.string(id)
        writer.string(idempotencyKey)
        writer.string(method)
        writer.string(url.absoluteString)
        writer.u32(headers.count / 2)
        for text in headers {
            writer.string(text)
        }
        writer.data(body)
        writer.date(createdAt)
        writer.u32(attempts)
        writer.u32(countedAttempts)
        writer.date(notBefore)
        writer.bytes.append(requiresAuthentication ? 1 : 0)
        writer.u32(statusCode)
        writer.string(reason)
        writer.data(responseBody)
        writer.date(endedAt)
        return writer.finish()
    }

    /// The record in `bytes`, or `nil` when they are not a whole, intact entry file.
    @_optimize(size)
    static func decoding(_ bytes: [UInt8]) -> EntryRecord? {
        bytes.withUnsafeBytes { buffer in
            var reader = EntryReader(buffer)
            return EntryRecord(reading: &reader)
        }
    }
}

/// Appends an entry file's fields (see ``EntryRecord``), its header first, filled in by ``finish()``.
private struct EntryWriter {
    var bytes: [UInt8] = [0x45, 0x4E, 0x4F, 0x58, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]  // "ENOX", version 1

    @_optimize(size)
    mutating func u32(_ value: Int) {
        withUnsafeBytes(of: UInt32(clamping: value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A length, then the bytes.
    @inline(never)
    @_optimize(size)
    mutating func raw(_ buffer: UnsafeRawBufferPointer) {
        u32(buffer.count)
        bytes.append(contentsOf: buffer)
    }

    @inline(never)
    @_optimize(size)
    mutating func data(_ data: Data) {
        data.withUnsafeBytes { raw($0) }
    }

    @inline(never)
    @_optimize(size)
    mutating func string(_ text: String) {
        text.utf8CString.withUnsafeBytes { raw(UnsafeRawBufferPointer(rebasing: $0.dropLast())) }  // without its NUL
    }

    /// Seconds since 1970 as the bits of a `Double`; 0 bits for none.
    @inline(never)
    @_optimize(size)
    mutating func date(_ date: Date?) {
        let bits = date?.timeIntervalSince1970.bitPattern ?? 0
        u32(Int(truncatingIfNeeded: bits & 0xFFFF_FFFF))
        u32(Int(truncatingIfNeeded: bits >> 32))
    }

    /// The file: the payload's length and checksum written into the header.
    @_optimize(size)
    mutating func finish() -> [UInt8] {
        let count = bytes.count - EntryRecord.headerSize
        let crc = bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[EntryRecord.headerSize...])) }
        for index in 0..<4 {
            bytes[8 + index] = UInt8(truncatingIfNeeded: count >> (8 * index))
            bytes[12 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index))
        }
        return bytes
    }
}

/// Reads an entry file's fields. It checks the header and the checksum first; a read past
/// the end, or any read of a file that failed those checks, gives an empty value and makes
/// ``isWhole`` false, so a damaged file is refused once, at the end.
private struct EntryReader {
    private let buffer: UnsafeRawBufferPointer
    private var offset = EntryRecord.headerSize
    private var failed = false

    @_optimize(size)
    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
        // "ENOX", then version 1 and three zero bytes.
        guard buffer.count >= EntryRecord.headerSize, u32(at: 0) == 0x584F_4E45, u32(at: 4) == 1 else {
            failed = true
            return
        }
        let length = u32(at: 8), crc = u32(at: 12)
        failed = length != buffer.count - EntryRecord.headerSize
            || CRC32.checksum(UnsafeRawBufferPointer(rebasing: buffer[EntryRecord.headerSize...])) != crc
    }

    /// Whether every field was read and the file holds nothing more.
    var isWhole: Bool { !failed && offset == buffer.count }

    @_optimize(size)
    private func u32(at index: Int) -> Int {
        Int(buffer[index]) | Int(buffer[index + 1]) << 8 | Int(buffer[index + 2]) << 16 | Int(buffer[index + 3]) << 24
    }

    /// The next `count` bytes, or `nil` (and failed) when there are fewer.
    @inline(never)
    @_optimize(size)
    private mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
        guard !failed, count <= buffer.count - offset else {
            failed = true
            return nil
        }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
    }

    @_optimize(size)
    mutating func byte() -> UInt8 {
        take(1)?.first ?? 0
    }

    @inline(never)
    @_optimize(size)
    mutating func u32() -> Int {
        guard take(4) != nil else { return 0 }
        return u32(at: offset - 4)
    }

    /// A count of header fields, each at least 8 bytes: a count the rest cannot hold fails.
    @_optimize(size)
    mutating func count() -> Int {
        let count = u32()
        guard count <= (buffer.count - offset) / 8 else {
            failed = true
            return 0
        }
        return count
    }

    @inline(never)
    @_optimize(size)
    mutating func data() -> Data {
        // Through a pointer: `Data(bytes:count:)` is not generic.
        take(u32()).flatMap { buffer in buffer.baseAddress.map { Data(bytes: $0, count: buffer.count) } } ?? Data()
    }

    @inline(never)
    @_optimize(size)
    mutating func string() -> String {
        take(u32()).map { String(decoding: $0, as: UTF8.self) } ?? ""  // the checksum vouches for the bytes
    }

    @inline(never)
    @_optimize(size)
    mutating func date() -> Date? {
        let bits = UInt64(u32()) | UInt64(u32()) << 32
        return bits == 0 ? nil : Date(timeIntervalSince1970: Double(bitPattern: bits))
    }
}
