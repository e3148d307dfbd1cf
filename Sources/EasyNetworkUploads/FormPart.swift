#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// One part of a `MultipartFormData`: its headers (ending with the blank
/// line), then its bytes, from memory or read from `file` when the body is written.
final class FormPart: MultipartPart {
    let headers: String
    let data: Data
    let file: URL?

    init(headers: String, data: Data = Data(), file: URL? = nil) {
        self.headers = headers
        self.data = data
        self.file = file
    }

    /// The one writer of this module.
    var writer: any MultipartWriter { MultipartBodyWriter() }
}
