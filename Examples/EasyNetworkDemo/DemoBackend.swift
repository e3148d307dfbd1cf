import EasyNetworkTesting
import Foundation

/// A small fake backend on the loopback server: the endpoints the demo calls (listed in
/// `EasyNetworkDemo.routes`, which `--help` prints), and those of the loopback server itself
/// (`/large/{bytes}` for the download).
enum DemoBackend {
    /// Starts the backend on 127.0.0.1, on `port` (0: any free one).
    static func start(port: UInt16 = 0) throws -> LoopbackServer {
        let server = try LoopbackServer(port: port)
        server.route("POST", "/sign_in") { request in
            guard let body = request.jsonBody() as? [String: Any],
                  let user = body["username"] as? String,
                  body["password"] as? String == "secret"
            else { return .json(#"{"error": "wrong user name or password"}"#, status: 403) }
            return .json(object: ["userName": user, "token": "token-\(user)"])
        }
        server.route("GET", "/items") { _ in
            .json(object: (1...5).map { ["id": $0, "title": "Item \($0)"] })
        }
        server.route("GET", "/profile") { _ in
            .json(#"{"id": 7, "name": "Ana", "email": "ana@example.com"}"#)
        }
        server.route("GET", "/private") { _ in
            .status(401, headers: ["WWW-Authenticate": #"Bearer realm="demo""#, "Content-Type": "application/json"],
                    body: Data(#"{"error": "token expired"}"#.utf8))
        }
        server.route("GET", "/broken") { _ in
            .json(#"{"message": "database is down"}"#, status: 500)
        }
        server.route("GET", "/slow") { _ in
            .delayed(5, .json("{}"))
        }
        // A second backend style: every answer wrapped in {code, msg, data, traceId}.
        server.route("GET", "/v2/profile") { _ in
            .json(#"{"code": 0, "msg": "", "data": {"id": 7, "name": "Ana", "email": "ana@example.com"}, "traceId": "a1b2"}"#)
        }
        server.route("POST", "/v2/orders") { _ in
            .json(#"{"code": 8888, "msg": "item out of stock", "data": {"sku": "TEA-1"}, "traceId": "c3d4"}"#)
        }
        // A third style: bearer tokens that expire, and a flaky endpoint.
        let flaky = FlakyCounter()
        server.route("GET", "/v3/me") { request in
            request.header("Authorization") == "Bearer fresh-token"
                ? .json(#"{"id": 7, "name": "Ana", "email": "ana@example.com"}"#)
                : .json(#"{"error": "token expired"}"#, status: 401)
        }
        server.route("POST", "/v3/refresh") { _ in .json(#"{"token": "fresh-token"}"#) }
        server.route("GET", "/v3/news") { _ in
            flaky.next() <= 2 ? .status(503, headers: ["Retry-After": "0.3"]) : .json(#"["EasyNetwork 1.0 ships"]"#)
        }
        // Orchestration: a chain's steps and a batch's members.
        server.route("GET", "/v4/cart") { _ in .json(#"{"cartId": 9, "items": 3}"#) }
        server.route("GET", "/v4/quote") { request in
            .json(#"{"cartId": \#(request.queryItems.first?.value ?? "0"), "total": 4200}"#)
        }
        server.route("GET", prefix: "/v4/thumb/") { request in
            let id = Int(request.path.split(separator: "/").last ?? "") ?? 0
            let reply = LoopbackReply.json(#"{"id": \#(id), "bytes": \#(id * 1000)}"#)
            return id == 4 ? .status(404) : .delayed(Double(5 - id % 5) * 0.03, reply)
        }
        // Transfers: an upload that reports what it received and how many form parts it
        // found between the boundary its Content-Type names (as any server splits it).
        server.route("POST", "/v5/upload") { request in
            let boundary = request.header("Content-Type")?.components(separatedBy: "boundary=").last ?? ""
            let delimiter = Data("--\(boundary)\r\n".utf8)
            var parts = 0
            var rest = request.body.startIndex..<request.body.endIndex
            while !boundary.isEmpty, let found = request.body.range(of: delimiter, in: rest) {
                parts += 1
                rest = found.upperBound..<request.body.endIndex
            }
            return .json(#"{"received": \#(request.body.count), "parts": \#(parts)}"#)
        }
        return server
    }
}

/// Counts calls, for an endpoint that fails twice before it works.
final class FlakyCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }
}
