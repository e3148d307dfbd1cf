import Foundation

/// Writes a ``LoopbackReply`` to a connected socket as an HTTP/1.1 response.
enum LoopbackReplyWriter {
    /// Whether the connection may serve another request afterwards.
    enum Outcome {
        case keepOpen
        case close
    }

    /// 64 KB of the `i % 251` pattern plus one period, so any offset can be sliced without copying.
    private static let patternBlock: [UInt8] = (0..<(64 * 1024 + 251)).map { UInt8($0 % 251) }

    private static let reasons: [Int: String] = [
        100: "Continue", 200: "OK", 201: "Created", 202: "Accepted", 204: "No Content",
        206: "Partial Content", 301: "Moved Permanently", 302: "Found", 303: "See Other",
        304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
        413: "Content Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Content",
        429: "Too Many Requests", 431: "Request Header Fields Too Large",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
        503: "Service Unavailable", 504: "Gateway Timeout",
    ]

    /// Sends `reply` on `fd`. `headOnly` is true for HEAD requests; `closeAfter` when the client asked to close.
    static func write(_ reply: LoopbackReply, to fd: Int32, headOnly: Bool, closeAfter: Bool) -> Outcome {
        if reply.delay > 0 {
            Thread.sleep(forTimeInterval: reply.delay)
        }
        switch reply.ending {
        case .stall, .raw:
            return writeFault(reply, to: fd, headOnly: headOnly)
        case .closeWithoutResponse:
            return .close
        case .reset(let declaredLength):
            let head = makeHead(reply, framing: "Content-Length: \(declaredLength)", close: true)
            if LoopbackSocket.sendAll(fd, head), !headOnly, case .pattern(let start, let count) = reply.body {
                _ = sendPattern(fd, start: start, count: count)
            }
            LoopbackSocket.setResetOnClose(fd)
            return .close
        case .truncate(let declaredLength):
            let head = makeHead(reply, framing: "Content-Length: \(declaredLength)", close: true)
            if LoopbackSocket.sendAll(fd, head), !headOnly, case .pattern(let start, let count) = reply.body {
                _ = sendPattern(fd, start: start, count: count)
            }
            return .close
        case .normal:
            break
        }

        let userWantsClose = reply.headers.contains {
            HTTPFieldText.sameName($0.key, "Connection") && $0.value.lowercased().contains("close")
        }
        let isInterim = reply.status < 200
        let close = closeAfter || userWantsClose || isInterim
        let hasNoBody = isInterim || reply.status == 204 || reply.status == 304
        let sent: Bool
        switch reply.body {
        case .bytes(let data):
            if hasNoBody {
                sent = LoopbackSocket.sendAll(fd, makeHead(reply, framing: nil, close: close))
            } else {
                var message = makeHead(reply, framing: "Content-Length: \(data.count)", close: close)
                if headOnly {
                    sent = LoopbackSocket.sendAll(fd, message)
                } else if data.count <= 64 * 1024 {
                    message.append(data)
                    sent = LoopbackSocket.sendAll(fd, message)
                } else {
                    sent = LoopbackSocket.sendAll(fd, message) && LoopbackSocket.sendAll(fd, data)
                }
            }
        case .pattern(let start, let count):
            let head = makeHead(reply, framing: hasNoBody ? nil : "Content-Length: \(count)", close: close)
            sent = LoopbackSocket.sendAll(fd, head) && (headOnly || hasNoBody || sendPattern(fd, start: start, count: count))
        case .chunks(let chunks, let interval):
            let head = makeHead(reply, framing: hasNoBody ? nil : "Transfer-Encoding: chunked", close: close)
            sent = LoopbackSocket.sendAll(fd, head)
                && (headOnly || hasNoBody || sendChunks(fd, chunks: chunks, interval: interval))
        case .trickle(let data, let interval):
            let head = makeHead(reply, framing: hasNoBody ? nil : "Content-Length: \(data.count)", close: close)
            sent = LoopbackSocket.sendAll(fd, head) && (headOnly || hasNoBody || sendTrickle(fd, data, interval: interval))
        }
        return sent && !close ? .keepOpen : .close
    }

    /// Sends a bare error response (used for unparsable requests) and asks to close.
    static func writeError(_ status: Int, to fd: Int32) {
        _ = write(.json(object: ["error": reasons[status] ?? "error"], status: status), to: fd, headOnly: false, closeAfter: true)
    }

    /// Sends `HTTP/1.1 100 Continue`.
    static func writeContinue(to fd: Int32) -> Bool {
        LoopbackSocket.sendAll(fd, Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
    }

    static func makeHead(_ reply: LoopbackReply, framing: String?, close: Bool) -> Data {
        var text = "HTTP/1.1 \(reply.status) \(reasons[reply.status] ?? "Status \(reply.status)")\r\n"
        let reserved: Set<String> = ["content-length", "transfer-encoding", "connection"]
        for (name, value) in reply.headers.sorted(by: { $0.key < $1.key }) where !reserved.contains(name.lowercased()) {
            text += "\(name): \(value)\r\n"
        }
        if let framing {
            text += framing + "\r\n"
        }
        if close {
            text += "Connection: close\r\n"
        }
        text += "\r\n"
        return Data(text.utf8)
    }

    static func sendPattern(_ fd: Int32, start first: Int, count: Int) -> Bool {
        patternBlock.withUnsafeBytes { block in
            var offset = 0
            while offset < count {
                let length = min(64 * 1024, count - offset)
                let start = (first + offset) % 251
                guard LoopbackSocket.sendAll(fd, UnsafeRawBufferPointer(rebasing: block[start..<(start + length)])) else {
                    return false
                }
                offset += length
            }
            return true
        }
    }

    private static func sendChunks(_ fd: Int32, chunks: [Data], interval: TimeInterval) -> Bool {
        var isFirst = true
        for chunk in chunks where !chunk.isEmpty {
            if !isFirst && interval > 0 {
                Thread.sleep(forTimeInterval: interval)
            }
            isFirst = false
            var frame = Data((String(chunk.count, radix: 16) + "\r\n").utf8)
            frame.append(chunk)
            frame.append(Data("\r\n".utf8))
            guard LoopbackSocket.sendAll(fd, frame) else { return false }
        }
        return LoopbackSocket.sendAll(fd, Data("0\r\n\r\n".utf8))
    }
}
