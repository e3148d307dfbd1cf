import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps a cancel from landing between a redirect's question and its answer, which
/// swift-corelibs-foundation turns into a trap.
///
/// On Linux a task that meets a redirect waits for its delegate's answer; a `cancel()` in
/// that wait stops the transfer on the task's work queue first, and the answer, queued
/// after it, then finds no redirect waiting: "Received callback for HTTP redirection, but
/// we're not waiting for it" ends the process. So every cancel the library makes of a
/// session task, and every redirect answer of ``SessionDelegate``, runs under one lock:
/// a cancel that came first is seen by the answer, which is then never given (the task
/// ends as cancelled); an answer that came first is queued before the cancel's stop. On
/// Apple platforms both run as they are.
package enum RedirectGuard {
    #if canImport(FoundationNetworking)
    private static let lock = Lock()
    #endif

    /// Cancels `task`; the task's completion reports the cancellation.
    package static func cancel(_ task: URLSessionTask) {
        #if canImport(FoundationNetworking)
        lock.lock()
        defer { lock.unlock() }
        #endif
        task.cancel()
    }

    /// Gives `task`'s delegate answer to a redirect, unless the task was cancelled or has
    /// ended meanwhile (Linux): then its completion already reports that.
    package static func answer(_ task: URLSessionTask, _ request: URLRequest?, _ completionHandler: (URLRequest?) -> Void) {
        #if canImport(FoundationNetworking)
        lock.lock()
        defer { lock.unlock() }
        guard task.state == .running else { return }
        #endif
        completionHandler(request)
    }
}
