#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

extension MultipartFormData {
    /// Writes the whole body to `url`: the parts of `fields` (a request's `params` as
    /// text fields), then this form's, between this form's boundaries.
    /// - Returns: its length in bytes.
    /// - Throws: when a file cannot be read or the body cannot be written.
    @discardableResult
    func write(to url: URL, after fields: MultipartFormData? = nil) throws -> Int64 {
        let writer = try FileWriter(url: url, appending: false)
        defer { writer.close() }
        // Each delimiter but the first follows the CRLF that ends the part before it.
        var delimiter = "--" + boundary
        var length = try fields?.writeParts(into: writer, delimiter: &delimiter, boundary: boundary) ?? 0
        length += try writeParts(into: writer, delimiter: &delimiter, boundary: boundary)
        return length + (try writer.put(delimiter, "--\r\n"))
    }

    /// Writes the parts, each after `delimiter`, which becomes the one after a part.
    /// - Returns: the bytes written.
    private func writeParts(into writer: FileWriter, delimiter: inout String, boundary: String) throws -> Int64 {
        var length: Int64 = 0
        for case let part as FormPart in parts {
            length += try writer.put(delimiter, "\r\n" + part.headers)
            if let file = part.file {
                length += try writer.copy(from: file)
            } else {
                length += try writer.put(part.data)
            }
            delimiter = "\r\n--" + boundary
        }
        return length
    }
}
