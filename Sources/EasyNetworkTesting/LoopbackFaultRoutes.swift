import Foundation

/// The fault routes every ``LoopbackServer`` starts with, beside ``LoopbackBuiltInRoutes``.
enum LoopbackFaultRoutes {
    /// Registers the fault routes on `core`.
    static func register(on core: LoopbackServerCore) {
        core.addRoute(method: nil, path: "/stall-headers") { _ in .stalledHead }
        core.addRoute(method: nil, path: "/stall-body") { _ in .stalledBody(declaredLength: 100_000, sentBytes: 1000) }
        core.addRoute(method: nil, path: "/truncated") { _ in .raw(truncated) }
        core.addRoute(method: nil, path: "/trickle", handler: trickle)
        core.addRoute(method: nil, path: "/bad-chunk") { _ in .raw(badChunk) }
        core.addRoute(method: nil, path: "/html") { _ in .text(html, contentType: "text/html; charset=utf-8") }
        core.addRoute(method: nil, path: "/redirect-loop") { _ in .status(302, headers: ["Location": "/redirect-loop"]) }
        core.addRoute(method: nil, prefix: "/unavailable/", handler: unavailable)
    }

    /// A 200 that declares 100,000 bytes, sends 1000 (pattern bytes) and closes normally (a FIN, not a reset).
    static let truncated = Data(
        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n".utf8
    ) + Data((0..<1000).map { UInt8($0 % 251) })

    /// A chunked 200 whose second chunk size is not hexadecimal.
    static let badChunk = Data((
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + "2\r\n{}\r\nzz\r\nnot a chunk\r\n0\r\n\r\n"
    ).utf8)

    /// What a captive portal or a misrouted proxy answers with a 200.
    static let html = "<!DOCTYPE html><html><head><title>Sign in</title></head><body><p>Please sign in.</p></body></html>"

    private static func trickle(_ request: RecordedRequest) -> LoopbackReply {
        let count = min(max(request.queryValue("bytes").flatMap { Int($0) } ?? 20, 0), 100_000)
        let interval = min(max(request.queryValue("interval_ms").flatMap { Int($0) } ?? 50, 0), 60_000)
        return .trickle(Data((0..<count).map { UInt8($0 % 251) }), interval: Double(interval) / 1000)
    }

    private static func unavailable(_ request: RecordedRequest) -> LoopbackReply {
        guard let seconds = Int(request.path.dropFirst("/unavailable/".count)), seconds >= 0 else {
            return .json(object: ["error": "bad Retry-After"], status: 400)
        }
        return .json(object: ["status": 503], status: 503, headers: ["Retry-After": "\(seconds)"])
    }
}
