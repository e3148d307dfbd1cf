#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

extension MultipartFormData {
    /// Writes the whole body to `url`: `fields` (a request's `params`) as text fields, then
    /// this form's parts, between this form's boundaries.
    /// - Returns: its length in bytes.
    /// - Throws: when a file cannot be read or the body cannot be written.
    @discardableResult
    func write(to url: URL, fields: [(name: String, value: String)] = []) throws -> Int64 {
        let writer = try FileWriter(url: url, appending: false)
        defer { writer.close() }
        // Each delimiter but the first follows the CRLF that ends the part before it.
        var delimiter = "--" + boundary
        var length: Int64 = 0
        for field in fields {
            length += try writer.put(delimiter, "\r\n" + Self.headers(name: field.name, fileName: nil, mimeType: nil))
            length += try writer.put(Self.bytes(field.value))
            delimiter = "\r\n--" + boundary
        }
        for case let part as FormPart in parts {
            length += try writer.put(delimiter, "\r\n" + part.headers)
            if let file = part.file {
                length += try writer.copy(from: file)
            } else {
                length += try writer.put(part.data)
            }
            delimiter = "\r\n--" + boundary
        }
        return length + (try writer.put(delimiter, "--\r\n"))
    }
}
