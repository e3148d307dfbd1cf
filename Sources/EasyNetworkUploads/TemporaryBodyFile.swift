#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// The ``MultipartBodyFile`` that ``MultipartBodyWriter`` writes: a temporary file the
/// request removes when it ends, whatever the outcome.
final class TemporaryBodyFile: MultipartBodyFile {
    let url: URL
    let length: Int64
    let writer: any MultipartWriter

    init(url: URL, length: Int64, writer: any MultipartWriter) {
        self.url = url
        self.length = length
        self.writer = writer
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
