import Foundation

extension NetworkQueue {
    /// Adds `download` to this queue and returns the downloaded file's URL when it has
    /// finished. Cancelling the calling task cancels the download (the bytes so far stay
    /// on disk for a later resume).
    /// - Throws: the download's ``NetworkError`` (a 404, a transport failure; kind
    ///   `cancelled` when the task or the operation was cancelled).
    @discardableResult
    public func run(_ download: DownloadOperation) async throws -> URL {
        try await result(of: download, observe: download.observeResult)
    }
}

extension DownloadOperation: FailureReporting {
    var failure: NetworkError? {
        guard case .failure(let error)? = result else { return nil }
        return error
    }
}
