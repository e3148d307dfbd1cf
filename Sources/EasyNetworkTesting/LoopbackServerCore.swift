import Foundation
import Dispatch

/// The state and threads behind a ``LoopbackServer``.
///
/// Kept separate from the public object so the server's threads never keep it alive: dropping the last
/// reference to the ``LoopbackServer`` runs its `deinit`, which stops this core.
///
/// Descriptor ownership: the accept thread alone closes the listening socket, and each connection thread
/// alone closes its own socket (under the lock, after removing it from `openConnections`). `stop()` only
/// calls `shutdown` on descriptors still registered, so no descriptor is ever used after it was closed.
final class LoopbackServerCore: @unchecked Sendable {  // unchecked: every var guarded by `lock`
    /// A route handler.
    typealias Handler = @Sendable (RecordedRequest) -> LoopbackReply

    private struct RouteKey: Hashable {
        let method: String?
        let path: String
    }

    private struct PrefixRoute {
        let method: String?
        let prefix: String
        let handler: Handler
    }

    private let lock = NSLock()
    private let listener: Int32
    private let acceptLoopFinished = DispatchSemaphore(value: 0)
    private var isStopping = false
    private var openConnections: [Int: Int32] = [:]
    private var nextConnectionID = 0
    private var exactRoutes: [RouteKey: Handler] = [:]
    private var prefixRoutes: [PrefixRoute] = []
    private var records: [RecordedRequest] = []
    private var accepted = 0
    private var activeRequests = 0
    private var peakActiveRequests = 0

    /// Wraps an already listening socket. Call ``start()`` to begin accepting.
    init(listener: Int32) {
        self.listener = listener
    }

    /// Starts the accept thread.
    func start() {
        let thread = Thread { [self] in runAcceptLoop() }
        thread.name = "LoopbackServer.accept"
        thread.start()
    }

    /// Stops accepting, shuts down open connections and waits (briefly) until the listening socket is closed.
    func stop() {
        lock.lock()
        let wasStopping = isStopping
        if !wasStopping {
            isStopping = true
            LoopbackSocket.shutdownBoth(listener)
            for fd in openConnections.values {
                LoopbackSocket.shutdownBoth(fd)
            }
        }
        lock.unlock()
        if !wasStopping {
            _ = acceptLoopFinished.wait(timeout: .now() + 2)
        }
    }

    // MARK: Routes

    /// Adds or replaces an exact-path route.
    func addRoute(method: String?, path: String, handler: @escaping Handler) {
        lock.lock()
        defer { lock.unlock() }
        exactRoutes[RouteKey(method: method?.uppercased(), path: path)] = handler
    }

    /// Adds or replaces a prefix route.
    func addRoute(method: String?, prefix: String, handler: @escaping Handler) {
        let route = PrefixRoute(method: method?.uppercased(), prefix: prefix, handler: handler)
        lock.lock()
        defer { lock.unlock() }
        prefixRoutes.removeAll { $0.method == route.method && $0.prefix == route.prefix }
        prefixRoutes.append(route)
    }

    /// Exact routes (method-specific first), then the longest matching prefix; nil if nothing matches.
    private func handler(method: String, path: String) -> Handler? {
        let method = method.uppercased()
        lock.lock()
        defer { lock.unlock() }
        if let handler = exactRoutes[RouteKey(method: method, path: path)] ?? exactRoutes[RouteKey(method: nil, path: path)] {
            return handler
        }
        let best = prefixRoutes
            .filter { ($0.method == nil || $0.method == method) && path.hasPrefix($0.prefix) }
            .max { lhs, rhs in
                lhs.prefix.count != rhs.prefix.count ? lhs.prefix.count < rhs.prefix.count : lhs.method == nil && rhs.method != nil
            }
        return best?.handler
    }

    // MARK: Records and counters

    /// Every request received since start or the last reset, in arrival order.
    var requests: [RecordedRequest] {
        lock.lock()
        defer { lock.unlock() }
        return records
    }

    /// Connections accepted since start or the last reset.
    var acceptedConnections: Int {
        lock.lock()
        defer { lock.unlock() }
        return accepted
    }

    /// The most requests in flight at once since start or the last reset.
    var peakConcurrentRequests: Int {
        lock.lock()
        defer { lock.unlock() }
        return peakActiveRequests
    }

    /// Clears the records and counters (requests still in flight keep counting toward the new peak).
    func resetRecords() {
        lock.lock()
        defer { lock.unlock() }
        records.removeAll()
        accepted = 0
        peakActiveRequests = activeRequests
    }

    private func beginRequest() {
        lock.lock()
        defer { lock.unlock() }
        activeRequests += 1
        peakActiveRequests = max(peakActiveRequests, activeRequests)
    }

    private func endRequest() {
        lock.lock()
        defer { lock.unlock() }
        activeRequests -= 1
    }

    private func record(_ request: RecordedRequest) {
        lock.lock()
        defer { lock.unlock() }
        records.append(request)
    }

    // MARK: Threads

    private func runAcceptLoop() {
        defer {
            LoopbackSocket.closeDescriptor(listener)
            acceptLoopFinished.signal()
        }
        while true {
            lock.lock()
            let stopping = isStopping
            lock.unlock()
            if stopping { return }
            guard LoopbackSocket.waitReadable(listener, milliseconds: 100) else { continue }
            guard let fd = LoopbackSocket.acceptConnection(listener) else {
                Thread.sleep(forTimeInterval: 0.005)
                continue
            }
            lock.lock()
            if isStopping {
                lock.unlock()
                LoopbackSocket.closeDescriptor(fd)
                return
            }
            nextConnectionID += 1
            let id = nextConnectionID
            openConnections[id] = fd
            accepted += 1
            lock.unlock()

            let thread = Thread { [self] in serveConnection(fd: fd, id: id) }
            thread.name = "LoopbackServer.connection.\(id)"
            thread.start()
        }
    }

    private func serveConnection(fd: Int32, id: Int) {
        defer {
            lock.lock()
            openConnections[id] = nil
            LoopbackSocket.closeDescriptor(fd)
            lock.unlock()
        }
        var reader = LoopbackRequestReader(fd: fd)
        while true {
            let head: LoopbackRequestHead
            switch reader.readHead() {
            case .closed:
                return
            case .tooLarge:
                LoopbackReplyWriter.writeError(431, to: fd)
                return
            case .malformed:
                LoopbackReplyWriter.writeError(400, to: fd)
                return
            case .head(let parsed):
                head = parsed
            }

            beginRequest()
            defer { endRequest() }
            if head.expectsContinue && head.hasBody {
                guard LoopbackReplyWriter.writeContinue(to: fd) else { return }
            }
            let pace = LoopbackReadPace(head: head)
            if pace != nil {
                LoopbackSocket.setReceiveBufferSize(fd, 32 * 1024)
            }
            let body: Data
            switch reader.readBody(for: head, pace: pace) {
            case .body(let data):
                body = data
            case .tooLarge:
                LoopbackReplyWriter.writeError(413, to: fd)
                return
            case .malformed:
                LoopbackReplyWriter.writeError(400, to: fd)
                return
            }

            let request = RecordedRequest(head: head, body: body, connectionID: id)
            record(request)
            let reply = handler(method: request.method, path: request.path)?(request)
                ?? .json(object: ["error": "not found"], status: 404)
            let outcome = LoopbackReplyWriter.write(
                reply,
                to: fd,
                headOnly: request.method.uppercased() == "HEAD",
                closeAfter: head.wantsClose
            )
            if case .close = outcome { return }
        }
    }
}
