import Foundation

extension NetworkQueue {
    /// Adds `download` to this queue and returns the downloaded file's URL when it has
    /// finished. Cancelling the calling task cancels the download (the bytes so far stay
    /// on disk for a later resume).
    /// - Throws: the download's ``NetworkError`` (a 404, a transport failure; kind
    ///   `cancelled` when the task or the operation was cancelled).
    @discardableResult
    public func run(_ download: DownloadOperation) async throws -> URL {
        // Waits on the non-generic path of `run(_: Operation)` until the download has
        // finished; the download's own result is what counts (a cancel that came after the
        // file was delivered does not turn it into an error). Still `nil` only when it
        // finished cancelled before it started, which is what it then delivers.
        _ = try? await run(download as Operation)
        return try (download.result ?? .failure(.cancelled(url: nil))).get()
    }
}

extension DownloadOperation: FailureReporting {
    var failure: NetworkError? {
        guard case .failure(let error)? = result else { return nil }
        return error
    }
}
