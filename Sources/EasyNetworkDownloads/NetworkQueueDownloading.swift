#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

extension NetworkQueue {
    /// Adds `download` to this queue and returns the downloaded file's URL when it has
    /// finished. Cancelling the calling task cancels the download (the bytes so far stay
    /// on disk for a later resume).
    /// - Throws: the download's `NetworkError` (a 404, a transport failure; kind
    ///   `cancelled` when the task or the operation was cancelled).
    // Emitted into its callers: a program that never awaits a download carries none of it
    // (nor the async waiting path it shares with the core's `run`).
    @_alwaysEmitIntoClient
    @discardableResult
    public func run(_ download: DownloadOperation) async throws -> URL {
        // Waits on the one non-generic waiting path until the download has delivered (its
        // completion ran), as `run` of a RequestOperation does; the download's own result is
        // what counts (a cancel that came after the file was delivered does not turn it
        // into an error).
        await wait(for: download) { delivered in download.observeResult { _ in delivered() } }
        return try (download.result ?? .failure(NetworkError(kind: .cancelled))).get()
    }
}
