#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// The ``MultipartBodyFile`` that ``MultipartBodyWriter`` writes: a temporary file the
/// request removes when it ends, whatever the outcome.
final class TemporaryBodyFile: MultipartBodyFile {
    let url: URL
    let length: Int64

    init(url: URL, length: Int64) {
        self.url = url
        self.length = length
    }

    /// The one writer of this module (a value of no size: no field holds it).
    var writer: any MultipartWriter { MultipartBodyWriter() }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
