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
        // Searched byte-wise: every request of every test passes through here.
        let requestLine = lines.removeFirst().utf8.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].starts(with: "HTTP/1.".utf8) else { return nil }
        method = String(decoding: requestLine[0], as: UTF8.self)
        target = String(decoding: requestLine[1], as: UTF8.self)
        version = String(decoding: requestLine[2], as: UTF8.self)

        var fields: [(name: String, value: String)] = []
        for line in lines {
            let bytes = line.utf8
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon != bytes.startIndex,
                  !bytes[..<colon].contains(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
            else { return nil }
            let name = String(decoding: bytes[..<colon], as: UTF8.self)
            let value = HTTPFieldText.trimmed(line[bytes.index(after: colon)...])
            fields.append((name: name, value: value))
        }
        headers = fields

        // Digits only (no sign); repeated fields must agree on the number.
        var lengths = Set<Int>()
        for field in fields where HTTPFieldText.sameName(field.name, "Content-Length") {
            guard !field.value.isEmpty, field.value.utf8.allSatisfy({ (48...57).contains($0) }),
                  let length = Int(field.value) else { return nil }
            lengths.insert(length)
        }
        guard lengths.count <= 1 else { return nil }
        contentLength = lengths.first
    }

    /// The first value of the header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { HTTPFieldText.sameName($0.name, name) }?.value
    }

    /// The target's path (without scheme, authority, query or fragment) and the raw
    /// text after its first `?` (nil when it has none), found in one pass.
    var pathAndQuery: (path: String, query: String?) {
        let form = originForm
        guard let mark = form.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (form, nil) }
        return (String(form[..<mark]), String(form[form.utf8.index(after: mark)...]))
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
        return version != "HTTP/1.1" || tokens.contains { HTTPFieldText.trimmed($0) == "close" }
    }

    /// The target reduced to origin form (`/path?query`): `scheme://authority` dropped
    /// (the authority ends at the first `/`, `?` or `#`), and any `#fragment` cut off.
    private var originForm: String {
        var form = Substring(target)
        var absolute = false
        if !target.hasPrefix("/"), let scheme = target.range(of: "://") {
            let rest = target[scheme.upperBound...]
            let ends: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")]
            form = rest.utf8.firstIndex(where: ends.contains).map { rest[$0...] } ?? ""
            absolute = true
        }
        if let hash = form.utf8.firstIndex(of: UInt8(ascii: "#")) {
            form = form[..<hash]
        }
        return absolute && form.utf8.first != UInt8(ascii: "/") ? "/" + form : String(form)
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
