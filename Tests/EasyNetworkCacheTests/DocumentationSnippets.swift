import EasyNetwork
import EasyNetworkCache
import Foundation

// The code of EasyNetworkCache.docc, compiled (DocumentationTests finds it here).
enum CacheDocumentationSnippets {
    static func installACache(host: HostConfiguration) {
        // import EasyNetworkCache
        host.responseCache = ResponseCache(name: "my-sdk", maxBytes: 20 << 20)
        host.cachePolicy = .revalidate
    }
}
