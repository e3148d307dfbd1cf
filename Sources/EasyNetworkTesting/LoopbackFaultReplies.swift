import Foundation

/// Replies that break the exchange in the ways a fault matrix needs: stalls, trickles, short
/// bodies and bytes that are not valid HTTP.
extension LoopbackReply {
    /// Reads the request, then sends nothing and keeps the connection open until the client closes it
    /// or the server stops (stalled headers).
    public static var stalledHead: LoopbackReply {
        LoopbackReply(status: 0, headers: [:], body: .bytes(Data()), delay: 0, ending: .stall(declaredLength: nil))
    }

    /// Sends a 200 head with `Content-Length: declaredLength` and `sentBytes` body bytes, then stays silent
    /// with the connection open until the client closes it or the server stops (stalled body).
    ///
    /// `sentBytes` is clamped to `0...declaredLength`; body byte `i` is `UInt8(i % 251)`.
    public static func stalledBody(declaredLength: Int, sentBytes: Int) -> LoopbackReply {
        partialBody(declaredLength: declaredLength, sentBytes: sentBytes, headers: [:]) { .stall(declaredLength: $0) }
    }

    /// A response with `Content-Length` whose body goes out one byte at a time, `interval` seconds apart
    /// (a slow trickle).
    public static func trickle(_ body: Data, status: Int = 200, contentType: String = "application/octet-stream", interval: TimeInterval) -> LoopbackReply {
        LoopbackReply(status: status, headers: ["Content-Type": contentType], body: .trickle(body, interval: max(0, interval)), delay: 0, ending: .normal)
    }

    /// Sends `bytes` exactly as given, with no head added, then closes: for responses that are not valid
    /// HTTP (a bad chunk size, a broken status line).
    public static func raw(_ bytes: Data) -> LoopbackReply {
        LoopbackReply(status: 0, headers: [:], body: .bytes(Data()), delay: 0, ending: .raw(bytes))
    }
}
