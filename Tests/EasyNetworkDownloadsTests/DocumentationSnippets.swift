import EasyNetwork
import EasyNetworkDownloads
import Foundation

// The code of EasyNetworkDownloads.docc, compiled (DocumentationTests finds it here).
enum DownloadsDocumentationSnippets {
    struct AssetRequest: BaseAPIRequest {
        let id: Int
        var api: String { "/assets/\(id)" }        // a GET: the defaults do the rest
    }

    func downloadAsset(host: HostConfiguration, queue: NetworkQueue, caches: URL,
                       showProgress: @escaping @Sendable (Double) -> Void) async throws -> URL {
        let download = DownloadOperation(request: AssetRequest(id: 7), configuration: host, to: caches.appendingPathComponent("asset-7.zip"))
        download.onProgress = { progress in showProgress(progress.fractionCompleted) }
        return try await queue.run(download)         // the file's URL; throws on a 404 or any failure
    }
}
