import Foundation
import Dispatch
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` that answers requests from ``HTTPStubs`` without touching the network.
///
/// You normally never name it: ``HTTPStubs/makeSessionConfiguration()`` installs a per-set subclass.
/// Installed directly (for example in `protocolClasses`), it accepts every request and answers
/// 404 `{"error":"no stub"}`. Delayed replies are scheduled with `DispatchQueue.asyncAfter`;
/// `stopLoading()` (task cancellation) cancels a reply that has not been delivered yet.
/// Its own mutable state is lock-protected; it is not marked `Sendable` because `URLProtocol` is not.
public class StubURLProtocol: URLProtocol {
    /// The ID of the ``HTTPStubs`` set this class serves; nil for the base class.
    class var stubSetID: Int? { nil }

    /// Carries the instance into the delivery closure: `URLProtocol` is not `Sendable` (explicitly so on
    /// Linux), but this class keeps its own mutable state behind `lock`.
    private struct Loader: @unchecked Sendable {  // unchecked: see above; StubURLProtocol's state is guarded by `lock`
        let instance: StubURLProtocol
    }

    private static let deliveryQueue = DispatchQueue(label: "EasyNetworkTesting.StubURLProtocol")

    private let lock = NSLock()
    private var pendingDelivery: DispatchWorkItem?
    private var isStopped = false

    /// Accepts every request: the class is only reachable from sessions that list it.
    override public class func canInit(with request: URLRequest) -> Bool {
        true
    }

    /// Returns `request` unchanged.
    override public class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    /// Records the request with its set and delivers the matching reply (now, or after its delay).
    override public func startLoading() {
        let request = Self.readingBodyStream(of: self.request)
        let stubs = Self.stubSetID.flatMap { HTTPStubsRegistry.shared.stubs(id: $0) }
        let reply = stubs?.reply(to: request) ?? HTTPStubs.noStub
        guard reply.delay > 0 else {
            deliver(reply, for: request)
            return
        }
        let loader = Loader(instance: self)
        let work = DispatchWorkItem { loader.instance.deliver(reply, for: request) }
        lock.lock()
        pendingDelivery = work
        lock.unlock()
        Self.deliveryQueue.asyncAfter(deadline: .now() + reply.delay, execute: work)
    }

    /// Cancels a reply that has not been delivered yet.
    override public func stopLoading() {
        lock.lock()
        isStopped = true
        let work = pendingDelivery
        pendingDelivery = nil
        lock.unlock()
        work?.cancel()
    }

    private func deliver(_ reply: HTTPStubReply, for request: URLRequest) {
        lock.lock()
        let stopped = isStopped
        pendingDelivery = nil
        lock.unlock()
        guard !stopped, let client else { return }
        if let error = reply.error {
            client.urlProtocol(self, didFailWithError: error)
            return
        }
        var headers = reply.headers
        headers["Content-Length"] = String(reply.body.count)
        guard let url = request.url,
              let response = HTTPURLResponse(url: url, statusCode: reply.status, httpVersion: "HTTP/1.1", headerFields: headers)
        else {
            client.urlProtocol(self, didFailWithError: URLError(.badURL))
            return
        }
        client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        if !reply.body.isEmpty {
            client.urlProtocol(self, didLoad: reply.body)
        }
        client.urlProtocolDidFinishLoading(self)
    }

    /// `request` with a streamed body (`httpBodyStream`) read into `httpBody`.
    private static func readingBodyStream(of request: URLRequest) -> URLRequest {
        guard request.httpBody == nil, let stream = request.httpBodyStream else { return request }
        var body = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        stream.open()
        defer { stream.close() }
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { pointer in
                pointer.baseAddress.map { stream.read($0, maxLength: pointer.count) } ?? -1
            }
            guard count > 0 else { break }
            body.append(contentsOf: buffer[0..<count])
        }
        var copy = request
        copy.httpBodyStream = nil
        copy.httpBody = body
        return copy
    }
}
