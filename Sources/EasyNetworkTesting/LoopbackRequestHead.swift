import Foundation

/// The parsed request line and header fields of one HTTP/1.x request.
struct LoopbackRequestHead {
    /// The request method, as sent.
    let method: String
    /// The raw request target, as sent.
    let target: String
    /// The protocol version, for example `HTTP/1.1`.
    let version: String
    /// Header fields in the order received.
    let headers: [(name: String, value: String)]
    /// The declared `Content-Length`, if any.
    let contentLength: Int?

    /// Parses the bytes before the blank line; nil if they are not a valid HTTP/1.x request head.
    init?(bytes: ArraySlice<UInt8>) {
        var lines = Self.splitLines(bytes)
        guard !lines.isEmpty else { return nil }
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return nil }
        method = String(requestLine[0])
        target = String(requestLine[1])
        version = String(requestLine[2])

        var fields: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { return nil }
            let name = String(line[..<colon])
            guard !name.contains(where: { $0 == " " || $0 == "\t" }) else { return nil }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields.append((name: name, value: value))
        }
        headers = fields

        let lengths = Set(fields.filter { $0.name.lowercased() == "content-length" }.map(\.value))
        if lengths.isEmpty {
            contentLength = nil
        } else {
            guard lengths.count == 1, let text = lengths.first, let length = Int(text), length >= 0 else { return nil }
            contentLength = length
        }
    }

    /// The first value of the header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The target's path, without scheme, authority or query.
    var path: String {
        let withoutQuery = originForm.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return withoutQuery.first.map(String.init) ?? ""
    }

    /// The raw text after the first `?`, or nil when the target has none.
    var query: String? {
        let parts = originForm.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.count == 2 ? String(parts[1]) : nil
    }

    /// True if the body uses `Transfer-Encoding: chunked`.
    var isChunked: Bool {
        header("Transfer-Encoding")?.lowercased().contains("chunked") ?? false
    }

    /// True if a body follows the head.
    var hasBody: Bool {
        isChunked || (contentLength ?? 0) > 0
    }

    /// True if the client sent `Expect: 100-continue`.
    var expectsContinue: Bool {
        header("Expect")?.lowercased() == "100-continue"
    }

    /// True if the connection must close after this exchange (`Connection: close` or HTTP/1.0).
    var wantsClose: Bool {
        let tokens = (header("Connection") ?? "").lowercased().split(separator: ",")
        return version != "HTTP/1.1" || tokens.contains { $0.trimmingCharacters(in: .whitespaces) == "close" }
    }

    /// The target reduced to origin form (`/path?query`), dropping `scheme://authority` if present.
    private var originForm: String {
        guard let range = target.range(of: "://"), !target.hasPrefix("/") else { return target }
        let rest = target[range.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return "/" }
        return String(rest[slash...])
    }

    private static func splitLines(_ bytes: ArraySlice<UInt8>) -> [String] {
        var lines: [String] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 13, index + 1 < bytes.endIndex, bytes[index + 1] == 10 {
                lines.append(String(decoding: bytes[start..<index], as: UTF8.self))
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        lines.append(String(decoding: bytes[start..<bytes.endIndex], as: UTF8.self))
        return lines
    }
}
