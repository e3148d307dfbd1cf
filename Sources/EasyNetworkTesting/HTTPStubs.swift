import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A set of canned responses for `URLSession`, served in-process by ``StubURLProtocol`` (no sockets).
///
/// Sets are isolated: only sessions created from this set's ``makeSessionConfiguration()`` see its stubs.
/// Requests that match no stub get a 404 with JSON `{"error":"no stub"}`.
///
/// ```swift
/// let stubs = HTTPStubs()
/// stubs.stub("GET", path: "/user", reply: .json(#"{"id": 1}"#))
/// let session = URLSession(configuration: stubs.makeSessionConfiguration())
/// ```
public final class HTTPStubs: @unchecked Sendable {  // unchecked: `stubs` and `received` guarded by `lock`
    /// A stub handler.
    typealias Handler = @Sendable (URLRequest) -> HTTPStubReply

    private struct Stub {
        let method: String?
        let path: String
        let handler: Handler
    }

    /// This set's ID in ``HTTPStubsRegistry``.
    let id: Int

    private let lock = NSLock()
    private var stubs: [Stub] = []
    private var received: [URLRequest] = []

    /// Creates an empty set.
    public init() {
        id = HTTPStubsRegistry.shared.makeID()
        HTTPStubsRegistry.shared.register(self)
    }

    deinit {
        HTTPStubsRegistry.shared.unregister(id: id)
    }

    /// Answers requests whose URL path (as `URLComponents.path` gives it, percent-decoded) equals `path` with
    /// `reply`. A nil `method` matches any method.
    ///
    /// A later stub for the same method and path replaces the earlier one; method-specific stubs win.
    public func stub(_ method: String? = nil, path: String, reply: HTTPStubReply) {
        stub(method, path: path) { _ in reply }
    }

    /// Answers requests whose URL path equals `path` with whatever `handler` returns for them.
    ///
    /// The handler receives the request with its body in `httpBody`. It runs on URLSession's threads.
    public func stub(_ method: String? = nil, path: String, handler: @escaping @Sendable (URLRequest) -> HTTPStubReply) {
        let stub = Stub(method: method?.uppercased(), path: path, handler: handler)
        lock.lock()
        defer { lock.unlock() }
        stubs.removeAll { $0.method == stub.method && $0.path == stub.path }
        stubs.append(stub)
    }

    /// Every request received, in order, with the body in `httpBody` (read from `httpBodyStream` if needed).
    ///
    /// Limitation: on Linux the body of an upload task (`uploadTask(with:from:)`) is not visible to URL
    /// protocols, so it is missing here; data tasks with `httpBody` are fine.
    public var requests: [URLRequest] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// An ephemeral configuration (no URL cache) whose `protocolClasses` starts with this set's
    /// ``StubURLProtocol`` subclass, so sessions made from it are answered by this set only.
    public func makeSessionConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubURLProtocolSlot.protocolClass(forSetID: id)] + (configuration.protocolClasses ?? [])
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// Records `request` and returns the reply of the matching stub, or the "no stub" 404.
    func reply(to request: URLRequest) -> HTTPStubReply {
        let method = (request.httpMethod ?? "GET").uppercased()
        let path = request.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.path } ?? ""
        lock.lock()
        received.append(request)
        let handler = stubs.first { $0.method == method && $0.path == path }?.handler
            ?? stubs.first { $0.method == nil && $0.path == path }?.handler
        lock.unlock()
        return handler?(request) ?? Self.noStub
    }

    /// The reply for requests that match no stub.
    static let noStub = HTTPStubReply.json(#"{"error":"no stub"}"#, status: 404)
}
