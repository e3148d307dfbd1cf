import EasyNetwork
import EasyNetworkDownloads
import Foundation

// The code of EasyNetworkDownloads.docc, compiled (DocumentationTests finds it here).
enum DownloadsDocumentationSnippets {
    struct AssetRequest: BaseAPIRequest {
        let id: Int
        var api: String { "/assets/\(id)" }
        var method: NetworkService.Method { .get }
        var query: NetworkService.QueryType { .path }
        var params: [String: Any]? { nil }
        var headers: [String: String]? { nil }
    }

    static func downloadAnAsset(caches: URL, showProgress: @escaping @Sendable (Double) -> Void) async throws -> URL {
        // import EasyNetworkDownloads
        let download = DownloadOperation(request: AssetRequest(id: 7), to: caches.appendingPathComponent("asset-7.zip"))
        download.onProgress = { progress in showProgress(progress.fractionCompleted) }
        let file = try await NetworkQueue.shared.run(download)
        return file
    }
}
