#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// One entry as it lives in its file: the request as built (minus credentials), its
/// idempotency key, its delivery history and, for a dead letter, how it ended.
///
/// The file is `magic (4) | version (1) | 3 zero bytes | payload length (4) | CRC-32 of
/// the payload (4) | payload`, integers little-endian; the payload is the fields below in
/// order, strings and bytes with a 4-byte length. A file that is short, long, of another
/// version or whose checksum does not match is corrupt: it is set aside, never guessed at.
struct EntryRecord: Sendable {
    /// The file name without extension: a time-ordered, unique name (oldest sorts first).
    var id: String
    var idempotencyKey: String
    var method: String
    var url: URL
    /// Header fields in the order they were built, credentials removed.
    var headers: [HeaderField]
    var body: Data
    var createdAt: Date
    /// Failed attempts so far, for the backoff.
    var attempts: Int = 0
    /// Failed attempts that count against ``OutboxOptions/maxAttempts``.
    var countedAttempts: Int = 0
    /// Not to be sent before this time (a backoff, a `Retry-After`).
    var notBefore: Date?
    /// Whether the request wanted the host's token (``BaseAPIRequest/requiresAuthentication``).
    var requiresAuthentication = true
    /// A dead letter's last HTTP status, reason, response body (cut) and end.
    var statusCode: Int?
    var reason = ""
    var responseBody = Data()
    var endedAt: Date?

    /// One header field.
    struct HeaderField: Sendable {
        var name: String
        var value: String
    }

    static let magic: [UInt8] = Array("ENOX".utf8)
    static let version: UInt8 = 1
    static let headerSize = 16

    /// The file's bytes.
    func encoded() -> [UInt8] {
        var writer = Writer()
        writer.string(id)
        writer.string(idempotencyKey)
        writer.string(method)
        writer.string(url.absoluteString)
        writer.u32(UInt32(truncatingIfNeeded: headers.count))
        for field in headers {
            writer.string(field.name)
            writer.string(field.value)
        }
        writer.bytes(body)
        writer.date(createdAt)
        writer.u32(UInt32(clamping: attempts))
        writer.u32(UInt32(clamping: countedAttempts))
        writer.date(notBefore)
        writer.u8(requiresAuthentication ? 1 : 0)
        writer.u32(UInt32(clamping: statusCode ?? 0))
        writer.string(reason)
        writer.bytes(responseBody)
        writer.date(endedAt)
        let payload = writer.bytes
        var file = Self.magic + [Self.version, 0, 0, 0]
        file.reserveCapacity(Self.headerSize + payload.count)
        Writer.appendU32(UInt32(truncatingIfNeeded: payload.count), to: &file)
        Writer.appendU32(payload.withUnsafeBytes(CRC32.checksum), to: &file)
        file += payload
        return file
    }

    /// The record in `bytes`, or `nil` when they are not a whole, intact entry file.
    init?(decoding bytes: [UInt8]) {
        guard bytes.count >= Self.headerSize, Array(bytes[0..<4]) == Self.magic, bytes[4] == Self.version,
              bytes[5] == 0, bytes[6] == 0, bytes[7] == 0, Int(Reader.u32(bytes, at: 8)) == bytes.count - Self.headerSize
        else { return nil }
        let crc = bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[Self.headerSize...])) }
        guard crc == Reader.u32(bytes, at: 12) else { return nil }
        var reader = Reader(bytes: bytes, offset: Self.headerSize)
        guard let id = reader.string(), let key = reader.string(), let method = reader.string(),
              let urlText = reader.string(), let url = URL(string: urlText), let count = reader.u32()
        else { return nil }
        var headers: [HeaderField] = []
        for _ in 0..<count {
            guard let name = reader.string(), let value = reader.string() else { return nil }
            headers.append(HeaderField(name: name, value: value))
        }
        guard let body = reader.data(), let created = reader.date(), let attempts = reader.u32(),
              let counted = reader.u32(), let notBefore = reader.optionalDate(), let auth = reader.u8(),
              let status = reader.u32(), let reason = reader.string(), let responseBody = reader.data(),
              let ended = reader.optionalDate(), reader.atEnd
        else { return nil }
        self.id = id
        idempotencyKey = key
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        createdAt = created
        self.attempts = Int(attempts)
        countedAttempts = Int(counted)
        self.notBefore = notBefore
        requiresAuthentication = auth != 0
        statusCode = status == 0 ? nil : Int(status)
        self.reason = reason
        self.responseBody = responseBody
        endedAt = ended
    }

    init(id: String, idempotencyKey: String, method: String, url: URL, headers: [HeaderField], body: Data, createdAt: Date, requiresAuthentication: Bool) {
        self.id = id
        self.idempotencyKey = idempotencyKey
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.createdAt = createdAt
        self.requiresAuthentication = requiresAuthentication
    }
}

/// Appends the payload's fields.
private struct Writer {
    var bytes: [UInt8] = []

    static func appendU32(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u32(_ value: UInt32) { Self.appendU32(value, to: &bytes) }

    mutating func bytes(_ data: Data) {
        u32(UInt32(truncatingIfNeeded: data.count))
        bytes.append(contentsOf: data)
    }

    mutating func string(_ text: String) {
        let utf8 = text.utf8
        u32(UInt32(truncatingIfNeeded: utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// Seconds since 1970 as the bits of a `Double`; 0 bits for none.
    mutating func date(_ date: Date?) {
        let bits = date.map { $0.timeIntervalSince1970.bitPattern } ?? 0
        u32(UInt32(truncatingIfNeeded: bits))
        u32(UInt32(truncatingIfNeeded: bits >> 32))
    }
}

/// Reads the payload's fields; every read checks the bounds and answers `nil` past them.
private struct Reader {
    let bytes: [UInt8]
    var offset: Int

    static func u32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(bytes[offset + index]) << UInt32(index * 8) }
        return value
    }

    var atEnd: Bool { offset == bytes.count }

    mutating func u8() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u32() -> UInt32? {
        guard bytes.count - offset >= 4 else { return nil }
        defer { offset += 4 }
        return Self.u32(bytes, at: offset)
    }

    mutating func slice() -> ArraySlice<UInt8>? {
        guard let length = u32().map(Int.init), bytes.count - offset >= length else { return nil }
        defer { offset += length }
        return bytes[offset..<offset + length]
    }

    mutating func data() -> Data? { slice().map { Data($0) } }

    mutating func string() -> String? {
        guard let slice = slice() else { return nil }
        return String(decoding: slice, as: UTF8.self)  // the checksum vouches for the bytes
    }

    mutating func optionalDate() -> Date?? {
        guard let low = u32(), let high = u32() else { return nil }
        let bits = UInt64(low) | UInt64(high) << 32
        return .some(bits == 0 ? nil : Date(timeIntervalSince1970: Double(bitPattern: bits)))
    }

    mutating func date() -> Date? {
        guard let date = optionalDate() else { return nil }
        return date ?? Date(timeIntervalSince1970: 0)
    }
}
