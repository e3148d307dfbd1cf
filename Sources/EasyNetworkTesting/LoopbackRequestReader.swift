import Foundation

/// Reads HTTP/1.x requests (head, then body) from a connected socket, buffering across keep-alive requests.
struct LoopbackRequestReader {
    /// The outcome of reading a request head.
    enum HeadResult {
        case head(LoopbackRequestHead)
        case closed
        case tooLarge
        case malformed
    }

    /// The outcome of reading a request body.
    enum BodyResult {
        case body(Data)
        case tooLarge
        case malformed
    }

    /// The largest accepted request head (request line and headers).
    static let headLimit = 64 * 1024
    /// The largest accepted request body.
    static let bodyLimit = 512 * 1024 * 1024

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var position = 0
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    /// Creates a reader for the connected socket `fd`.
    init(fd: Int32) {
        self.fd = fd
    }

    /// Reads up to and including the blank line that ends a request head.
    mutating func readHead() -> HeadResult {
        compact()
        var searchFrom = position
        while true {
            if let end = find([13, 10, 13, 10], from: searchFrom) {
                guard end - position <= Self.headLimit else { return .tooLarge }
                let bytes = buffer[position..<end]
                position = end + 4
                guard let head = LoopbackRequestHead(bytes: bytes) else { return .malformed }
                return .head(head)
            }
            if buffer.count - position > Self.headLimit { return .tooLarge }
            searchFrom = max(position, buffer.count - 3)
            guard fill() else { return .closed }
        }
    }

    /// Reads the body announced by `head` (Content-Length or chunked; chunked bodies are decoded, trailers dropped).
    /// A `pace` slows the reading of the body down (either framing).
    mutating func readBody(for head: LoopbackRequestHead, pace: LoopbackReadPace? = nil) -> BodyResult {
        if head.isChunked { return readChunkedBody(pace: pace) }
        let length = head.contentLength ?? 0
        guard length <= Self.bodyLimit else { return .tooLarge }
        guard let body = readExactly(length, pace: pace) else { return .malformed }
        return .body(body)
    }

    private mutating func readChunkedBody(pace: LoopbackReadPace?) -> BodyResult {
        var body = Data()
        while true {
            guard let line = readLine() else { return .malformed }
            let sizeText = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                return .malformed
            }
            if size == 0 {
                while true {
                    guard let trailer = readLine() else { return .malformed }
                    if trailer.isEmpty { return .body(body) }
                }
            }
            guard body.count + size <= Self.bodyLimit else { return .tooLarge }
            guard let chunk = readExactly(size) else { return .malformed }
            body.append(chunk)
            if let pause = pace?.pause(from: body.count - size, to: body.count), pause > 0 {
                Thread.sleep(forTimeInterval: pause)
            }
            guard let end = readLine(), end.isEmpty else { return .malformed }
        }
    }

    /// Reads one CRLF-terminated line of at most 8 KB, without the CRLF.
    private mutating func readLine() -> String? {
        compact()
        var searchFrom = position
        while true {
            if let end = find([13, 10], from: searchFrom) {
                let line = String(decoding: buffer[position..<end], as: UTF8.self)
                position = end + 2
                return line
            }
            if buffer.count - position > 8 * 1024 { return nil }
            searchFrom = max(position, buffer.count - 1)
            guard fill() else { return nil }
        }
    }

    /// Reads exactly `count` bytes, first from the buffer, then straight from the socket,
    /// pausing as `pace` says.
    private mutating func readExactly(_ count: Int, pace: LoopbackReadPace? = nil) -> Data? {
        var data = Data()
        data.reserveCapacity(min(count, 16 * 1024 * 1024))
        let buffered = min(count, buffer.count - position)
        data.append(contentsOf: buffer[position..<(position + buffered)])
        position += buffered
        while data.count < count {
            var wanted = min(scratch.count, count - data.count)
            if let pace {
                wanted = min(wanted, pace.step - data.count % pace.step)
            }
            let received = scratch.withUnsafeMutableBytes { raw in
                LoopbackSocket.receive(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted]))
            }
            guard received > 0 else { return nil }
            data.append(contentsOf: scratch[0..<received])
            if let pause = pace?.pause(from: data.count - received, to: data.count), pause > 0 {
                Thread.sleep(forTimeInterval: pause)
            }
        }
        return data
    }

    /// Appends whatever the socket has to the buffer. False at end of stream or on error.
    private mutating func fill() -> Bool {
        let received = scratch.withUnsafeMutableBytes { LoopbackSocket.receive(fd, into: $0) }
        guard received > 0 else { return false }
        buffer.append(contentsOf: scratch[0..<received])
        return true
    }

    /// Drops consumed bytes so the buffer does not grow across keep-alive requests.
    private mutating func compact() {
        guard position > 0 else { return }
        buffer.removeFirst(position)
        position = 0
    }

    private func find(_ pattern: [UInt8], from start: Int) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        var index = max(start, 0)
        while index + pattern.count <= buffer.count {
            if buffer[index] == pattern[0] && buffer[index..<(index + pattern.count)].elementsEqual(pattern) {
                return index
            }
            index += 1
        }
        return nil
    }
}
