import Foundation

/// The routes every ``LoopbackServer`` starts with.
enum LoopbackBuiltInRoutes {
    /// Registers all built-in routes on `core`.
    static func register(on core: LoopbackServerCore) {
        core.addRoute(method: nil, prefix: "/status/", handler: status)
        core.addRoute(method: nil, prefix: "/delay/", handler: delay)
        core.addRoute(method: nil, path: "/slow-body", handler: slowBody)
        core.addRoute(method: nil, path: "/close") { _ in .closeWithoutResponse }
        core.addRoute(method: nil, path: "/reset") { _ in .resetMidBody(declaredLength: 100_000, sentBytes: 1000) }
        core.addRoute(method: nil, path: "/malformed-json") { _ in .json("{\"broken\": [1, 2") }
        core.addRoute(method: nil, path: "/no-content") { _ in .noContent }
        core.addRoute(method: nil, prefix: "/large/", handler: large)
        core.addRoute(method: nil, path: "/echo", handler: echo)
        // The body was read slowly (see LoopbackReadPace); the reply says how much came.
        core.addRoute(method: nil, path: LoopbackReadPace.path) { .json(object: ["bodyLength": $0.body.count]) }
    }

    private static func status(_ request: RecordedRequest) -> LoopbackReply {
        guard let code = Int(request.path.dropFirst("/status/".count)), (100...999).contains(code) else {
            return .json(object: ["error": "bad status code"], status: 400)
        }
        var headers: [String: String] = [:]
        if request.queryValue("challenge") == "1" {
            headers["WWW-Authenticate"] = "Basic realm=\"loopback\""
        }
        var object: [String: Any] = ["status": code]
        if let message = request.queryValue("message") {
            object["message"] = message
        }
        return .json(object: object, status: code, headers: headers)
    }

    private static func delay(_ request: RecordedRequest) -> LoopbackReply {
        guard let milliseconds = Int(request.path.dropFirst("/delay/".count)), milliseconds >= 0 else {
            return .json(object: ["error": "bad delay"], status: 400)
        }
        return .delayed(Double(milliseconds) / 1000, .json(object: ["delayed": milliseconds]))
    }

    private static func slowBody(_ request: RecordedRequest) -> LoopbackReply {
        let count = min(max(request.queryValue("chunks").flatMap { Int($0) } ?? 5, 0), 10_000)
        let interval = min(max(request.queryValue("interval_ms").flatMap { Int($0) } ?? 100, 0), 60_000)
        let chunks: [Data] = count == 0
            ? [Data("[]".utf8)]
            : (0..<count).map { index in
                Data(((index == 0 ? "[" : ",") + "\(index)" + (index == count - 1 ? "]" : "")).utf8)
            }
        return .chunked(chunks, headers: ["Content-Type": "application/json"], interval: Double(interval) / 1000)
    }

    private static func large(_ request: RecordedRequest) -> LoopbackReply {
        guard let count = Int(request.path.dropFirst("/large/".count)), count >= 0 else {
            return .json(object: ["error": "bad size"], status: 400)
        }
        // Range requests (one range, `bytes=a-b` or `bytes=a-`), honoured unless an
        // If-Range names another validator.
        guard let range = request.header("Range"), range.hasPrefix("bytes="), count > 0,
              request.header("If-Range").map({ $0 == "\"large-\(count)\"" }) ?? true
        else { return .pattern(count: count) }
        let bounds = range.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = Int(bounds[0]), start < count else {
            return .status(416, headers: ["Content-Range": "bytes */\(count)"])
        }
        let end = min(Int(bounds[1]) ?? (count - 1), count - 1)
        guard end >= start else { return .status(416, headers: ["Content-Range": "bytes */\(count)"]) }
        return .pattern(total: count, start: start, end: end)
    }

    private static func echo(_ request: RecordedRequest) -> LoopbackReply {
        var queryItems: [String: Any] = [:]
        for item in request.queryItems {
            queryItems[item.name] = item.value ?? NSNull()
        }
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.lowercased()
            headers[name] = headers[name].map { $0 + ", " + field.value } ?? field.value
        }
        let object: [String: Any] = [
            "method": request.method,
            "path": request.path,
            "query": request.query ?? NSNull(),
            "queryItems": queryItems,
            "headers": headers,
            "body": String(data: request.body, encoding: .utf8) ?? request.body.base64EncodedString(),
            "bodyLength": request.body.count,
        ]
        return .json(object: object)
    }
}
