import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A redirect of a host's task: the host's `redirectHandler` and header check, the
/// server-trust refusal of its target, the cross-origin credential rule, and on Linux the
/// redirects of a request with a body that the session must not follow (they would go out
/// empty: the request's exchange sends them). Answered once, under ``redirectLock`` (Linux).
extension SessionDelegate {
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Decided first (the host's handler is the caller's code), then answered once.
        Self.answer(task, follow(request, of: task, response: response), completionHandler)
    }

    /// The request to follow for a redirect of `task` to `request`, or `nil` to end the
    /// task with the 3xx.
    private func follow(_ request: URLRequest, of task: URLSessionTask, response: HTTPURLResponse) -> URLRequest? {
        var next = request
        var refused: NetworkError?
        // One read for the handler and the trust evaluator. Fail closed: without its host
        // (never expected while its task runs: the task's exchange holds it) neither can be
        // asked, so the redirect is not followed.
        guard let settings = host?.snapshot() else { return nil }
        if let handler = settings.redirectHandler {
            guard let decided = handler(response, request) else { return nil }
            next = decided
            // What the host's handler returned is checked as the request's own headers were
            // (`allHTTPHeaderFields` takes CR LF on Linux): such a redirect is not followed.
            refused = HeaderFieldCheck.failure(in: next.allHTTPHeaderFields, url: next.url, source: "the host's redirectHandler")
        }
        let url = next.url
        // A redirect to a pinned host that cannot be checked (Linux), or over plain HTTP, is
        // not followed either: the task ends with the 3xx, reported as the refusal. (Never
        // `task.cancel()` here: swift-corelibs-foundation then traps on the completion handler.)
        if let refusal = refused ?? settings.trustEvaluator?.refusal(for: url) {
            lock.lock()
            entryOrNote(task).refusal = refusal
            lock.unlock()
            return nil
        }
        let sent = task.originalRequest
        if !Self.sameOrigin(sent?.url ?? response.url, url) {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
            next.setValue(nil, forHTTPHeaderField: "Cookie")
        }
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation forgets the body of every redirect it follows
        // (`HTTPURLProtocol`, `knownBody = .none`) and sends one that keeps a method other
        // than `GET` and `HEAD` (a 307 or 308; a 301 or 302 of anything but a POST) empty, or
        // with the old `Content-Length` and no bytes. So such a redirect of a request that
        // carried a body is not the session's to follow: the task ends with the 3xx and the
        // request's exchange sends it with the body (see ``TransportOutcome/redirect``); a transfer of another kind (a download) fails with a typed error.
        let method = next.httpMethod ?? "GET"
        if method != "GET", method != "HEAD",
           task is URLSessionUploadTask || Self.carriesBody(sent) {
            lock.lock()
            let entry = entryOrNote(task)
            if entry.observer == nil {  // a buffered transfer, or a note on a plain one
                entry.followUp = next
            } else {
                entry.refusal = Self.unsentRedirect(response)  // a download
            }
            lock.unlock()
            return nil
        }
        #endif
        return next
    }

    // A cancel must not land between a redirect's question and its answer, which
    // swift-corelibs-foundation turns into a trap. On Linux a task that meets a redirect
    // waits for its delegate's answer; a `cancel()` in that wait stops the transfer on the
    // task's work queue first, and the answer, queued after it, then finds no redirect
    // waiting: "Received callback for HTTP redirection, but we're not waiting for it" ends
    // the process. So every cancel the library makes of a session task, and every redirect
    // answer, runs under one lock: a cancel that came first is seen by the answer, which is
    // then never given (the task ends as cancelled); an answer that came first is queued
    // before the cancel's stop. On Apple platforms both run as they are.

    #if canImport(FoundationNetworking)
    /// Orders the library's cancels of session tasks and the redirect answers (Linux).
    private static let redirectLock = Lock()
    #endif

    /// Cancels `task`; the task's completion reports the cancellation.
    static func cancel(_ task: URLSessionTask) {
        #if canImport(FoundationNetworking)
        redirectLock.lock()
        defer { redirectLock.unlock() }
        #endif
        task.cancel()
    }

    /// Gives `task`'s delegate answer to a redirect, unless the task was cancelled or has
    /// ended meanwhile (Linux): then its completion already reports that.
    static func answer(_ task: URLSessionTask, _ request: URLRequest?, _ completionHandler: (URLRequest?) -> Void) {
        #if canImport(FoundationNetworking)
        redirectLock.lock()
        defer { redirectLock.unlock() }
        guard task.state == .running else { return }
        #endif
        completionHandler(request)
    }

    #if canImport(FoundationNetworking)
    /// The error of a redirect that keeps a body which cannot be sent again (a stream, a
    /// download's): not followed, rather than sent empty.
    @inline(never)
    static func unsentRedirect(_ response: HTTPURLResponse?) -> NetworkError {
        NetworkError(
            kind: .invalidRequest,
            message: "The server redirected a request whose body cannot be sent again (a stream, or a download's body); URLSession on Linux would send it empty, so the redirect is not followed",
            response: response
        )
    }
    #else
    /// Keeps why `task`'s server was refused, for its end.
    func record(_ refusal: NetworkError, for task: URLSessionTask) {
        lock.lock()
        entryOrNote(task).refusal = refusal
        lock.unlock()
    }
    #endif

    /// Whether two URLs share scheme, host and port.
    @inline(__always)  // one caller
    static func sameOrigin(_ lhs: URL?, _ rhs: URL?) -> Bool {
        guard let lhs, let rhs else { return false }
        let scheme = lhs.scheme
        guard same(scheme, rhs.scheme), same(lhs.host, rhs.host) else { return false }
        // -1 for a scheme without a default: no port is negative.
        let defaultPort = same(scheme, "https") ? 443 : same(scheme, "http") ? 80 : -1
        return (lhs.port ?? defaultPort) == (rhs.port ?? defaultPort)
    }

    /// Whether two optional texts are equal ignoring case (nil equals only nil); out of line,
    /// for four call sites.
    @inline(never)
    private static func same(_ lhs: String?, _ rhs: String?) -> Bool {
        lhs?.lowercased() == rhs?.lowercased()
    }
}
