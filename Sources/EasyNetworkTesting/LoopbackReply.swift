import Foundation

/// What a ``LoopbackServer`` route sends back: a normal response, a slow one, or a deliberate fault.
///
/// `Content-Length` (or `Transfer-Encoding: chunked`) and `Connection` are always set by the server;
/// any such header passed in is ignored, except that `Connection: close` makes the server close afterwards.
public struct LoopbackReply: Sendable {
    /// How the body is produced.
    enum Body: Sendable {
        /// Fixed bytes, sent with `Content-Length`.
        case bytes(Data)
        /// `count` bytes of the pattern where byte `i` is `UInt8(i % 251)`, from offset
        /// `start`, generated while sending.
        case pattern(start: Int, count: Int)
        /// `Transfer-Encoding: chunked`, pausing `interval` seconds between chunks.
        case chunks([Data], interval: TimeInterval)
        /// Fixed bytes with `Content-Length`, sent one byte at a time, `interval` seconds apart.
        case trickle(Data, interval: TimeInterval)
    }

    /// How the exchange ends.
    enum Ending: Sendable {
        /// Send nothing (nil) or the head with this `Content-Length` and the (shorter) body, then stay
        /// silent until the client closes the connection or the server stops.
        case stall(declaredLength: Int?)
        /// Send these bytes exactly as given (no head is added), then close.
        case raw(Data)
        /// Send the response; keep the connection if the client allows.
        case normal
        /// Send nothing and close the connection.
        case closeWithoutResponse
        /// Send the head with this `Content-Length`, then the (shorter) body, then a TCP RST.
        case reset(declaredLength: Int)
        /// Send the head with this `Content-Length`, then the (shorter) body, then close normally (FIN).
        case truncate(declaredLength: Int)
    }

    let status: Int
    let headers: [String: String]
    let body: Body
    let delay: TimeInterval
    let ending: Ending

    /// A response with any status code, headers and body.
    public static func status(_ code: Int, headers: [String: String] = [:], body: Data = Data()) -> LoopbackReply {
        LoopbackReply(status: code, headers: headers, body: .bytes(body), delay: 0, ending: .normal)
    }

    /// A JSON response from ready-made JSON text, with `Content-Type: application/json` unless `headers` sets one.
    public static func json(_ jsonText: String, status: Int = 200, headers: [String: String] = [:]) -> LoopbackReply {
        .status(status, headers: adding("Content-Type", "application/json", to: headers), body: Data(jsonText.utf8))
    }

    /// A JSON response encoded with `JSONSerialization` (sorted keys, fragments allowed).
    ///
    /// If `object` cannot be encoded the reply is a 500 with a plain-text explanation instead.
    public static func json(object: Any, status: Int = 200, headers: [String: String] = [:]) -> LoopbackReply {
        guard JSONSerialization.isValidJSONObject([object]),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        else {
            return .text("LoopbackReply.json(object:): value cannot be encoded as JSON", status: 500)
        }
        return .status(status, headers: adding("Content-Type", "application/json", to: headers), body: data)
    }

    /// A UTF-8 text response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> LoopbackReply {
        .status(status, headers: ["Content-Type": contentType], body: Data(text.utf8))
    }

    /// A binary response.
    public static func data(
        _ body: Data,
        status: Int = 200,
        contentType: String = "application/octet-stream",
        headers: [String: String] = [:]
    ) -> LoopbackReply {
        .status(status, headers: adding("Content-Type", contentType, to: headers), body: body)
    }

    /// `reply`, but the server first waits `seconds` before sending anything (delayed headers).
    ///
    /// Delays add up when nested.
    public static func delayed(_ seconds: TimeInterval, _ reply: LoopbackReply) -> LoopbackReply {
        LoopbackReply(
            status: reply.status,
            headers: reply.headers,
            body: reply.body,
            delay: reply.delay + max(0, seconds),
            ending: reply.ending
        )
    }

    /// A `Transfer-Encoding: chunked` response that waits `interval` seconds between chunks (a slow body).
    ///
    /// Empty chunks are skipped, since an empty chunk would end the body.
    public static func chunked(
        _ chunks: [Data],
        status: Int = 200,
        headers: [String: String] = [:],
        interval: TimeInterval = 0
    ) -> LoopbackReply {
        LoopbackReply(status: status, headers: headers, body: .chunks(chunks, interval: max(0, interval)), delay: 0, ending: .normal)
    }

    /// Reads the request, then closes the connection without sending a single byte.
    public static var closeWithoutResponse: LoopbackReply {
        LoopbackReply(status: 0, headers: [:], body: .bytes(Data()), delay: 0, ending: .closeWithoutResponse)
    }

    /// Sends a 200 head with `Content-Length: declaredLength`, then `sentBytes` body bytes, then resets the
    /// connection (TCP RST via `SO_LINGER` {1, 0}).
    ///
    /// `sentBytes` is clamped to `0...declaredLength`; body byte `i` is `UInt8(i % 251)`.
    public static func resetMidBody(declaredLength: Int, sentBytes: Int) -> LoopbackReply {
        partialBody(declaredLength: declaredLength, sentBytes: sentBytes, headers: [:], ending: Ending.reset)
    }

    /// Sends a 200 head with `Content-Length: declaredLength`, then `sentBytes` body bytes, then closes the
    /// connection normally (a body cut short, with no reset).
    ///
    /// `sentBytes` is clamped to `0...declaredLength`; body byte `i` is `UInt8(i % 251)`. Extra `headers`
    /// (an ETag, `Accept-Ranges`) are sent too.
    public static func truncatedBody(declaredLength: Int, sentBytes: Int, headers: [String: String] = [:]) -> LoopbackReply {
        partialBody(declaredLength: declaredLength, sentBytes: sentBytes, headers: headers, ending: Ending.truncate)
    }

    /// A 200 head with `Content-Length: declaredLength` and the first `sentBytes` (clamped to
    /// `0...declaredLength`) bytes of the pattern body, ended by `ending`.
    static func partialBody(
        declaredLength: Int,
        sentBytes: Int,
        headers: [String: String],
        ending: (_ declaredLength: Int) -> Ending
    ) -> LoopbackReply {
        let declared = max(0, declaredLength)
        return LoopbackReply(
            status: 200,
            headers: adding("Content-Type", "application/octet-stream", to: headers),
            body: .pattern(start: 0, count: min(max(0, sentBytes), declared)),
            delay: 0,
            ending: ending(declared)
        )
    }

    /// `204 No Content` with no body.
    public static var noContent: LoopbackReply {
        .status(204)
    }

    /// A 200 `application/octet-stream` body of `count` bytes where byte `i` is `UInt8(i % 251)`,
    /// generated while sending so large sizes cost no memory.
    static func pattern(count: Int) -> LoopbackReply {
        LoopbackReply(
            status: 200,
            headers: ["Content-Type": "application/octet-stream", "ETag": "\"large-\(count)\"", "Accept-Ranges": "bytes"],
            body: .pattern(start: 0, count: max(0, count)),
            delay: 0,
            ending: .normal
        )
    }

    /// A 206 with bytes `start...end` of a `total`-byte pattern and its `Content-Range`.
    static func pattern(total: Int, start: Int, end: Int) -> LoopbackReply {
        LoopbackReply(
            status: 206,
            headers: [
                "Content-Type": "application/octet-stream",
                "ETag": "\"large-\(total)\"",
                "Accept-Ranges": "bytes",
                "Content-Range": "bytes \(start)-\(end)/\(total)",
            ],
            body: .pattern(start: start, count: end - start + 1),
            delay: 0,
            ending: .normal
        )
    }

    private static func adding(_ name: String, _ value: String, to headers: [String: String]) -> [String: String] {
        guard !headers.keys.contains(where: { HTTPFieldText.sameName($0, name) }) else { return headers }
        var result = headers
        result[name] = value
        return result
    }
}
