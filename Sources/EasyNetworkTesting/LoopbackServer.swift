import Foundation

/// A real HTTP/1.1 server on 127.0.0.1 (or the IPv6 loopback address `::1`) for tests and demos.
///
/// It binds an OS-assigned port, accepts on a background `Thread` and serves each connection on its own
/// `Thread` (blocking sockets, keep-alive, chunked request bodies, `Expect: 100-continue`). It records every
/// request it receives. Built-in routes (all replaceable with ``route(_:_:handler:)``):
///
/// - `/status/{code}`: that status with JSON `{"status": code}`; query `message=TEXT` adds `"message"`,
///   `challenge=1` adds `WWW-Authenticate: Basic realm="loopback"`. 1xx, 204 and 304 have no body.
/// - `/delay/{ms}`: waits, then 200 JSON `{"delayed": ms}`.
/// - `/slow-body?chunks=5&interval_ms=100`: a chunked JSON array (`[0,1,2,3,4]`), one element per chunk.
/// - `/close`: reads the request, then closes without a response.
/// - `/reset`: 200 with `Content-Length: 100000`, 1000 bytes, then a TCP RST.
/// - `/malformed-json`: 200 `application/json` body `{"broken": [1, 2`.
/// - `/no-content`: 204.
/// - `/large/{bytes}`: that many `application/octet-stream` bytes, byte `i` = `UInt8(i % 251)`, with an
///   ETag and single `Range` requests (206 with `Content-Range`, `If-Range` honoured, 416 when out of range).
/// - `/echo`: JSON describing the request (method, path, query, queryItems, headers, body, bodyLength).
/// - `/slow-upload?step=65536&interval_ms=20&stall_after=N&stall_ms=M`: reads the body slowly (`step`
///   bytes, then a pause; one long pause after `N` bytes), then 200 JSON `{"bodyLength": n}`.
/// - anything else: 404 JSON `{"error": "not found"}`.
///
/// Handlers that capture the server itself keep it alive; call ``stop()`` explicitly in that case.
///
/// Fault routes, also replaceable:
///
/// - `/stall-headers`: reads the request, then sends nothing until the client gives up.
/// - `/stall-body`: 200 with `Content-Length: 100000`, 1000 bytes, then nothing until the client gives up.
/// - `/truncated`: 200 with `Content-Length: 100000`, 1000 bytes, then a normal close (FIN).
/// - `/trickle?bytes=20&interval_ms=50`: that many pattern bytes with `Content-Length`, one byte per interval.
/// - `/bad-chunk`: a chunked 200 whose second chunk size is not hexadecimal, then a close.
/// - `/html`: 200 `text/html` (a sign-in page, as a captive portal sends).
/// - `/redirect-loop`: 302 to itself.
/// - `/unavailable/{seconds}`: 503 JSON with `Retry-After: seconds`.
public final class LoopbackServer: Sendable {
    /// The port the server listens on.
    public let port: UInt16

    /// Whether the server listens on the IPv6 loopback address `::1` (see ``init(port:ipv6:)``).
    public let isIPv6: Bool

    private let core: LoopbackServerCore

    /// Binds 127.0.0.1 on an OS-assigned port (port 0) and starts accepting on a background `Thread`.
    ///
    /// - Throws: ``LoopbackServerError`` if the socket cannot be created, bound or put in listening mode.
    public convenience init() throws {
        try self.init(port: 0)
    }

    /// Binds 127.0.0.1 on `port` (0: an OS-assigned one, as ``init()``) and starts accepting on a
    /// background `Thread`. A fixed port suits a server that other programs are told about (the
    /// demo's `--serve`); tests should let the system choose.
    ///
    /// - Throws: ``LoopbackServerError`` if the socket cannot be created, bound (the port is taken) or put
    ///   in listening mode.
    public convenience init(port: UInt16) throws {
        try self.init(port: port, ipv6: false)
    }

    /// Binds `::1` when `ipv6` (else 127.0.0.1, as ``init(port:)``) on `port` (0: an
    /// OS-assigned one) and starts accepting on a background `Thread`. Only IPv6 clients
    /// reach an IPv6 server: a client given `localhost` finds it when it tries `::1`. On
    /// Linux a `HostConfiguration` refuses an IPv6 host such as this server's ``baseURL``
    /// (swift-corelibs-foundation cannot send to one): give it `http://localhost:PORT`
    /// with this server's ``port`` instead.
    ///
    /// - Throws: ``LoopbackServerError`` if the socket cannot be created (a system without
    ///   IPv6), bound or put in listening mode.
    public init(port: UInt16 = 0, ipv6: Bool) throws {
        let listener = try LoopbackSocket.makeListener(port: port, ipv6: ipv6)
        self.port = listener.port
        isIPv6 = ipv6
        core = LoopbackServerCore(listener: listener.descriptor)
        LoopbackBuiltInRoutes.register(on: core)
        LoopbackFaultRoutes.register(on: core)
        core.start()
    }

    deinit {
        core.stop()
    }

    /// `http://127.0.0.1:PORT`, or `http://[::1]:PORT` for an IPv6 server. A
    /// `HostConfiguration` on Linux refuses that IPv6 URL: use `http://localhost:PORT` there
    /// (see ``init(port:ipv6:)``).
    public var baseURL: URL {
        URL(string: (isIPv6 ? "http://[::1]:" : "http://127.0.0.1:") + String(port)) ?? URL(fileURLWithPath: "/")
    }

    /// Registers a handler for an exact path (without query). A nil `method` matches any method.
    ///
    /// A later registration for the same method and path replaces the earlier one. Routes for a specific
    /// method win over method-less ones. Handlers run on the connection's thread and may block.
    public func route(_ method: String? = nil, _ path: String, handler: @escaping @Sendable (RecordedRequest) -> LoopbackReply) {
        core.addRoute(method: method, path: path, handler: handler)
    }

    /// Registers a handler for an exact path (without query), for any method: `server.route("/x") { ... }`.
    ///
    /// Same as `route(nil, path, handler:)`; needed because a lone string would otherwise bind to `method`.
    public func route(_ path: String, handler: @escaping @Sendable (RecordedRequest) -> LoopbackReply) {
        core.addRoute(method: nil, path: path, handler: handler)
    }

    /// Registers a handler for every path that starts with `prefix`.
    ///
    /// Prefix routes are checked after exact routes, longest prefix first.
    public func route(_ method: String? = nil, prefix: String, handler: @escaping @Sendable (RecordedRequest) -> LoopbackReply) {
        core.addRoute(method: method, prefix: prefix, handler: handler)
    }

    /// A snapshot of every request received since start or the last ``resetRecords()``, in arrival order.
    public var requests: [RecordedRequest] {
        core.requests
    }

    /// The recorded requests whose raw path equals `path`.
    public func requests(path: String) -> [RecordedRequest] {
        core.requests.filter { $0.path == path }
    }

    /// Clears ``requests``, ``acceptedConnections`` and ``peakConcurrentRequests``.
    ///
    /// Connection IDs keep increasing across resets.
    public func resetRecords() {
        core.resetRecords()
    }

    /// TCP connections accepted since start or the last ``resetRecords()``.
    public var acceptedConnections: Int {
        core.acceptedConnections
    }

    /// The most requests handled at once (from the end of reading a request head to the end of writing the
    /// reply) since start or the last ``resetRecords()``.
    public var peakConcurrentRequests: Int {
        core.peakConcurrentRequests
    }

    /// Closes the listening socket and all open connections. Safe to call more than once; `deinit` calls it.
    public func stop() {
        core.stop()
    }
}
